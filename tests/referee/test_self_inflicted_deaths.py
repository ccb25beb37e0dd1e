"""A death or a stop a bot brings on itself is its own loss, never a match the service voids.

Real bots through the real sandbox.  A bot that lowers its own CPU-time limit
and spins would be killed by the kernel with SIGKILL, which reads like a kill
from outside (an infrastructure error: the match re-run, never rated): the
seccomp filter refuses the call, so the bot spins into its move's timeout.
Every other way of having the kernel send the bot SIGKILL or a stop signal
later is refused too, and the bot plays on.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.referee.support import REPO, random_bot, survivors
from workers.match import Clock, MatchSpec
from workers.referee.play import play_match
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.start import BotProgram

BOTS = REPO / "tests" / "sandbox" / "bots"
CLOCK = Clock(move_ms=500, game_ms=10_000, startup_ms=4000)


def bot_program(tmp_path: Path, name: str, label: str, **params: object) -> BotProgram:
    directory = tmp_path / label
    directory.mkdir()
    shutil.copy(BOTS / f"{name}.py", directory / "main.py")
    shutil.copy(BOTS / "arbiter_common.py", directory / "arbiter_common.py")
    (directory / "params.json").write_text(json.dumps(params))
    return BotProgram(directory=directory, command=("python3", "main.py"))


def reports(stderr: str, tag: str) -> list[str]:
    return [line.split(":", 1)[1] for line in stderr.splitlines() if line.startswith(tag + ":")]


@pytest.mark.parametrize("seat", [0, 1])
def test_a_bot_that_lowers_its_cpu_limit_to_die_loses_on_time(
    tmp_path: Path, limits: SandboxLimits, seat: int
) -> None:  # fmt: skip
    """Either seat: the call is refused, the bot spins into its move's CPU budget and forfeits."""
    bots = [random_bot(tmp_path / "random")]
    bots.insert(seat, bot_program(tmp_path, "cpu_limit", "cpu_limit"))
    # 2 s of CPU per move: the lowered limit (at most 1 s away) would strike before the move's budget.
    spec = MatchSpec("", "count-test", {"target": 12}, 3, 2, Clock(move_ms=2000, game_ms=10_000, startup_ms=4000))
    record = play_match(spec, bots, limits=limits)  # today: ExternalKillError
    mine = record.seat_records[seat]
    assert mine.status == "timeout", record.reason
    assert "CPU time" in mine.detail, mine.detail
    assert record.seat_records[1 - seat].status == "ok"
    assert record.ranks[seat] == 2 and record.ranks[1 - seat] == 1
    assert [r.startswith("refused") for r in reports(mine.stderr, "LIMIT")] == [True], mine.stderr[-500:]
    assert survivors() == {}


SELF_SIGNALS = [
    ("clone", 9),
    ("clone", 19),
    ("fcntl", 9),
    ("fcntl", 19),
    ("timer", 9),
    ("timer", 19),
    ("mq", 9),
    ("mq", 19),
    ("pdeathsig", 19),
    ("pty", 0),
]


@pytest.mark.parametrize(("how", "signal"), SELF_SIGNALS, ids=[f"{h}-{s}" for h, s in SELF_SIGNALS])
def test_a_bot_cannot_have_the_kernel_kill_or_stop_it(
    tmp_path: Path, limits: SandboxLimits, how: str, signal: int
) -> None:  # fmt: skip
    """Each way is refused with EPERM, and the bot that tried plays the match to its end."""
    bot = bot_program(tmp_path, "self_signal", f"{how}-{signal}", how=how, signal=signal)
    spec = MatchSpec("", "count-test", {"target": 8}, 3, 2, CLOCK)
    record = play_match(spec, [bot, random_bot(tmp_path / "random")], limits=limits)
    mine = record.seat_records[0]
    assert reports(mine.stderr, "TRIED") == [f"{how} refused 1"], (record.reason, mine.stderr[-500:])
    assert [s.status for s in record.seat_records] == ["ok", "ok"], record.reason
    assert survivors() == {}
