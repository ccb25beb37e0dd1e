"""A bot starved of CPU by the machine is never timed out by the wall-clock backstop.

The backstop (2 x the move's CPU budget + 1 s of real time) is for bots that
sleep or block; time a bot spends waiting on a run queue for its CPU is not
its doing and is left out.  Here CPU hogs run on the match's CPU in a control
group of their own beside the bots' slot groups, weighing twelve times a bot
on move: a bot that thinks 120 ms of CPU per move (60% of its 200 ms budget)
then needs about 1.6 s of real time per move, beyond the 1.4 s backstop.  The
CPU budget still holds: that is the bot's own time.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ci import need
from tests.referee.support import FIRST_UID, SLOTS, require_cgroups, survivors, write_bot
from tests.waiting import wait_for
from workers.match import Clock, MatchRecord, MatchSpec
from workers.referee.play import play_match
from workers.sandbox.cgroups import CgroupSupport, detect, write_text
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.slots import pids_of_uid
from workers.sandbox.start import BotProgram

BOTS = Path(__file__).parent / "bots"
SLOT_UIDS = range(FIRST_UID, FIRST_UID + SLOTS)  # where the limits fixture runs bots
MARK = "starved"  # on the starved bot's command line, to find it among the slots' processes
COMMAND = [b"python3", b"main.py", MARK.encode()]
# Every move is starved alike, so twenty show it as well as a hundred did (1.6 s each: 32 s, not 160 s);
# the median below still leaves room for the moves played before the hogs are in place.
MOVES = 20
CLOCK = Clock(move_ms=200, game_ms=60_000, startup_ms=10_000)
HOG_WEIGHT = 12  # the hogs' group against one bot on move
# Answers every turn at once with "1", so that the starved bot plays MOVES moves to a target of 2 x MOVES.
QUICK = """
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif msg["type"] == "turn":
        print('{"move": "1"}', flush=True)
    else:
        break
"""


def starved_bot(tmp_path: Path) -> BotProgram:
    directory = tmp_path / "starved"
    directory.mkdir()
    shutil.copy(BOTS / "steady.py", directory / "main.py")
    shutil.copy(BOTS / "arbiter_common.py", directory / "arbiter_common.py")
    (directory / "params.json").write_text(json.dumps({"think_ms": 120}))
    return BotProgram(directory=directory, command=("python3", "main.py", MARK))


def the_starved_bot() -> int | None:
    for uid in SLOT_UIDS:
        for pid in pids_of_uid(uid):
            with contextlib.suppress(OSError):
                if Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:3] == COMMAND:
                    return pid
    return None


@contextlib.contextmanager
def hogs_on(cpu: int, support: CgroupSupport, count: int = 2) -> Iterator[None]:
    """``count`` busy processes pinned to ``cpu``, in a group beside the slot groups weighing HOG_WEIGHT bots."""
    if support.version == 1:
        group, weight = support.bases["cpu"] / "test-hogs", ("cpu.shares", 1024 * HOG_WEIGHT)
    else:
        group, weight = support.bases[""] / "test-hogs", ("cpu.weight", 100 * HOG_WEIGHT)
    group.mkdir(exist_ok=True)
    hogs: list[subprocess.Popen[bytes]] = []
    try:
        write_text(group / weight[0], str(weight[1]))
        for _ in range(count):
            hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            hogs.append(hog)
            os.sched_setaffinity(hog.pid, {cpu})
            write_text(group / "cgroup.procs", str(hog.pid))
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
        group.rmdir()


@pytest.mark.slow
def test_a_starved_bot_is_never_timed_out(tmp_path: Path, limits: SandboxLimits) -> None:
    require_cgroups(limits)
    need(limits.pin_cpu, "the match's bots must share one CPU (ARBITER_SANDBOX_PIN_CPU)")
    spec = MatchSpec("", "count-test", {"target": 2 * MOVES}, 3, 2, CLOCK)
    bots = [starved_bot(tmp_path), write_bot(tmp_path / "quick", QUICK)]
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(play_match(spec, bots, limits=limits))
        except Exception as exc:  # examined below
            outcome.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    try:
        pid = wait_for(the_starved_bot, 60, "the starved bot to start", every=0.02)
        (cpu,) = os.sched_getaffinity(pid)  # the match's CPU
        with hogs_on(cpu, detect(limits.cgroups)):
            thread.join(600)
    finally:
        thread.join(600)
    assert len(outcome) == 1 and isinstance(outcome[0], MatchRecord), outcome
    record = outcome[0]
    assert [s.status for s in record.seat_records] == ["ok", "ok"], record.reason  # today: seat 0 timed out
    mine = [m.ms for m in record.moves if m.seat == 0]
    assert len(mine) == MOVES and all(100 <= ms < 200 for ms in mine), mine
    # The starvation was real: most moves took longer in real time than the backstop allows.
    walls = [float(x.split(":", 1)[1]) for x in record.seat_records[0].stderr.splitlines() if x.startswith("WALL:")]
    backstop = limits.wall_limit_ms(CLOCK.move_ms)
    assert len(walls) == MOVES and statistics.median(walls) > backstop, (backstop, walls)
    assert survivors() == {}
