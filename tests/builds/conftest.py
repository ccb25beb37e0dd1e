"""Builds run in the real sandbox, in a uid range of their own (apart from the referee's and the kit's)."""

from __future__ import annotations

import io
import json
import subprocess
import tempfile
import uuid
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.referee.conftest import sandbox_runtime
from tests.referee.support import make_limits, require_sandbox
from tests.waiting import wait_for
from workers.packages.build import BuildLimits, BuildOutcome, build_package
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.trash import discard, trash_counts, trash_running

FIRST_UID = 61800  # apart from the referee (61200+), kit (61700+) and slot-lock (61900+) tests


@pytest.fixture(scope="session")
def build_runtime() -> Iterator[Path]:
    yield from sandbox_runtime("arbiter-test-build-", FIRST_UID)


@pytest.fixture
def limits(build_runtime: Path) -> SandboxLimits:
    value = make_limits(build_runtime, first_uid=FIRST_UID)
    require_sandbox(value)
    return value


def package(build: list[str], files: dict[str, str]) -> bytes:
    """A zip of ``files`` with a bot.json that runs ./bot after ``build``."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("bot.json", json.dumps({"command": ["./bot"], "build": build}))
        for name, text in files.items():
            archive.writestr(name, text)
    return out.getvalue()


@dataclass(frozen=True)
class WorkerDisk:
    """What builds leave on the worker: bytes under the runtime directory, mounts in it, scratch folders."""

    runtime_bytes: int
    mounts: tuple[str, ...]
    scratch: frozenset[str]
    trash_running: bool  # the thread that deletes copies on disk
    trash_undeleted: int

    @classmethod
    def of(cls, runtime: Path) -> WorkerDisk:
        """Measured now (``du`` stays on the runtime directory's own file system)."""
        du = subprocess.run(["du", "-sx", "--block-size=1", str(runtime)], capture_output=True, text=True, check=True)
        prefix = str(runtime) + "/"
        points = [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()]
        scratch = frozenset(p.name for p in Path(tempfile.gettempdir()).glob("arbiter-build-*"))
        mounts = tuple(p for p in points if p.startswith(prefix))
        return cls(int(du.stdout.split()[0]), mounts, scratch, trash_running(), trash_counts()["undeleted"])

    def left_since(self, before: WorkerDisk) -> list[str]:
        """What is here now that was not ``before`` (empty: the worker is back where it was)."""
        left = [f"mount {m}" for m in self.mounts if m not in before.mounts]
        left += [f"scratch {s}" for s in self.scratch - before.scratch]
        if self.runtime_bytes > before.runtime_bytes:
            left.append(f"{self.runtime_bytes - before.runtime_bytes} bytes in the runtime directory")
        if before.trash_running and not self.trash_running:
            left.append("the trash thread died")
        if self.trash_undeleted > before.trash_undeleted:
            left.append(f"{self.trash_undeleted - before.trash_undeleted} entries the trash could not delete")
        return left


def failed_build_leaving_nothing(
    build: list[str], *, bots: SandboxLimits, runtime: Path, limits: BuildLimits
) -> BuildOutcome:
    """Run ``build`` on a package of nothing else; it must fail and leave the worker as it found it.

    The trash thread is made to run first (a copy discarded and deleted), so that its survival is seen.
    """
    probe, bin_ = runtime / f"probe-{uuid.uuid4().hex}", runtime / "trash"
    probe.mkdir()
    discard(probe, bin_)
    wait_for(lambda: not any(bin_.iterdir()), 10, "the trash thread to delete a copy")
    before = WorkerDisk.of(runtime)
    assert before.trash_running
    outcome = build_package(package(build, {}), "bot.zip", tuple(build), bots=bots, limits=limits)
    assert not outcome.ok and outcome.archive == b"", outcome.log
    assert WorkerDisk.of(runtime).left_since(before) == []
    return outcome
