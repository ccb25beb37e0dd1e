"""A version's build in the real sandbox (``workers.packages.build``): what it makes, how it fails, its limits."""

from __future__ import annotations

import io
import tarfile

import pytest

from tests.builds.conftest import FIRST_UID, package
from tests.referee.support import SLOTS
from workers.packages.archive import inspect_package
from workers.packages.build import BUILT_FILENAME, BuildLimits, build_package
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.slots import tasks_of_uid

GCC = ["gcc", "-O2", "-o", "bot", "bot.c"]
LIMITS = BuildLimits(seconds=20, memory_mb=256, processes=64, tmp_mb=64)


def slot_tasks() -> int:
    """Processes left running under the test slots' uids."""
    return sum(tasks_of_uid(uid) for uid in range(FIRST_UID, FIRST_UID + SLOTS))


def test_a_c_bot_is_built_into_a_package(limits: SandboxLimits) -> None:
    outcome = build_package(
        package(GCC, {"bot.c": "int main(void) { return 0; }\n"}), "bot.zip", tuple(GCC), bots=limits, limits=LIMITS
    )
    assert outcome.ok, outcome.log
    with tarfile.open(fileobj=io.BytesIO(outcome.archive)) as archive:
        names = archive.getnames()
        member = archive.getmember("bot")
    assert sorted(names) == ["bot", "bot.c", "bot.json"]
    assert member.mode & 0o111 and member.size > 0
    assert inspect_package(outcome.archive, BUILT_FILENAME).command == ("./bot",)
    assert slot_tasks() == 0


def test_a_syntax_error_fails_with_the_compilers_words(limits: SandboxLimits) -> None:
    source = "int main(void) { return 0 }\n\x1b[31mcolour\n"
    outcome = build_package(package(GCC, {"bot.c": source}), "bot.zip", tuple(GCC), bots=limits, limits=LIMITS)
    assert not outcome.ok and outcome.archive == b""
    assert outcome.log.startswith("the build failed (exit status 1):")
    assert "error: expected" in outcome.log and "bot.c:1" in outcome.log
    assert "\x1b" not in outcome.log  # terminal escapes in the output are shown, never sent


def test_a_build_that_makes_no_program_fails(limits: SandboxLimits) -> None:
    build = ["true"]
    outcome = build_package(package(build, {"bot.c": ""}), "bot.zip", tuple(build), bots=limits, limits=LIMITS)
    assert not outcome.ok and "did not make './bot'" in outcome.log


def test_a_build_over_its_memory_is_stopped(limits: SandboxLimits) -> None:
    build = ["python3", "-c", "b = []\nwhile True: b.append(bytearray(1 << 20))"]
    outcome = build_package(package(build, {}), "bot.zip", tuple(build), bots=limits, limits=LIMITS)
    assert not outcome.ok
    assert outcome.log.startswith("the build used more than 256 MiB of memory and was stopped"), outcome.log
    assert slot_tasks() == 0


def test_a_build_over_its_time_is_stopped_with_everything_it_started(limits: SandboxLimits) -> None:
    # A child in the background as well: the whole build goes, not only its first process.
    build = ["sh", "-c", "sleep 600 & echo started; sleep 600"]
    quick = BuildLimits(seconds=2, memory_mb=256, processes=64, tmp_mb=64)
    outcome = build_package(package(build, {}), "bot.zip", tuple(build), bots=limits, limits=quick)
    assert not outcome.ok
    assert outcome.log == "the build took longer than 2 s and was stopped:\nstarted"
    assert slot_tasks() == 0


@pytest.mark.parametrize(
    "script, message",
    [
        (": > bot; ln -s /etc/passwd passwd", "link, device or fifo"),
        ("head -c 3000000 /dev/zero > bot", "larger than a package may be"),
    ],
)
def test_what_a_build_makes_is_checked_like_an_upload(
    limits: SandboxLimits, monkeypatch: pytest.MonkeyPatch, script: str, message: str
) -> None:
    monkeypatch.setenv("ARBITER_MAX_UNPACKED_BYTES", str(2_000_000))
    build = ["sh", "-c", script]
    outcome = build_package(package(build, {}), "bot.zip", tuple(build), bots=limits, limits=LIMITS)
    assert not outcome.ok and message in outcome.log, outcome.log
