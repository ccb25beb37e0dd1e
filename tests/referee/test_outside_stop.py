"""A bot stopped from outside its sandbox (SIGSTOP by another user) is never charged for the stop.

Under the seccomp filter a bot cannot stop itself, so a stopped process of the
bot was stopped from outside: its clock leaves the stopped time out, and a stop
longer than ``SandboxLimits.stopped_s`` ends the match as the service's fault
(ExternalStopError: run again, never rated).  Real bots through the real
sandbox; the stops are real signals from the test, a user other than the bot's.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from pathlib import Path

from tests.bot_processes import all_have_played, bots_of_uids
from tests.referee.support import FIRST_UID, SLOTS, make_limits, random_bot, survivors, write_bot
from tests.waiting import wait_for
from workers.match import Clock, MatchRecord, MatchSpec
from workers.referee.play import play_match
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.slots import pids_of_uid
from workers.sandbox.start import BotProgram, ExternalStopError, InfrastructureError

SLOT_UIDS = range(FIRST_UID, FIRST_UID + SLOTS)  # where make_limits runs bots
MARK = "stop-me"  # on the stopped bot's command line, to find it among the slots' processes
COMMAND = [b"python3", b"main.py", MARK.encode()]
SLOW = """
import json, sys, time
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif msg["type"] == "turn":
        time.sleep(0.05)  # bot code: 50 ms to think, so the match lasts long enough to be hit
        print('{"move": "1"}', flush=True)
"""
# 1 s of CPU per move, so 3 s of real time: a 10 s stop is far beyond the backstop.
CLOCK = Clock(move_ms=1000, game_ms=60_000, startup_ms=10_000)


def marked_bot() -> int | None:
    """The pid of the bot whose command line is ``python3 main.py MARK`` (bubblewrap's also name MARK)."""
    for uid in SLOT_UIDS:
        for pid in pids_of_uid(uid):
            try:
                if Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:3] == [
                    b"python3",
                    b"main.py",
                    MARK.encode(),
                ]:
                    return pid
            except OSError:
                continue
    return None


def play_in_background(limits: SandboxLimits, bots: list[BotProgram]) -> tuple[threading.Thread, list[object]]:
    spec = MatchSpec("", "count-test", {"target": 600}, 3, 2, CLOCK)
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(play_match(spec, bots, limits=limits))
        except Exception as exc:  # examined by the test
            outcome.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    # Into the match: each bot has answered a turn.
    wait_for(lambda: all_have_played(bots_of_uids(SLOT_UIDS)), 60, "each bot to answer a turn", every=0.02)
    return thread, outcome


def slow_bot(tmp_path: Path) -> BotProgram:
    slow = write_bot(tmp_path / "slow", SLOW)
    return BotProgram(directory=slow.directory, command=(*slow.command, MARK))


def test_a_bot_stopped_for_ten_seconds_plays_on_uncharged(tmp_path: Path, limits: SandboxLimits) -> None:
    thread, outcome = play_in_background(limits, [slow_bot(tmp_path), random_bot(tmp_path / "random")])
    victim = marked_bot()
    assert victim is not None
    started = time.monotonic()
    os.kill(victim, signal.SIGSTOP)
    try:
        time.sleep(10)  # the fault's length: the bot stays stopped for 10 s
    finally:
        with contextlib.suppress(ProcessLookupError):  # a timeout would have ended the match (and the bot)
            os.kill(victim, signal.SIGCONT)
    thread.join(120)
    assert len(outcome) == 1 and isinstance(outcome[0], MatchRecord), outcome
    record = outcome[0]
    assert [s.status for s in record.seat_records] == ["ok", "ok"], record.reason  # today: seat 0 timed out
    assert time.monotonic() - started >= 10  # the match went on through the stop
    assert max(m.ms for m in record.moves if m.seat == 0) < 500, record.moves
    assert survivors() == {}


def test_a_bot_stopped_beyond_the_bound_is_an_infrastructure_error(tmp_path: Path, runtime: Path) -> None:
    limits = make_limits(runtime, stopped_s=2.0)
    thread, outcome = play_in_background(limits, [slow_bot(tmp_path), random_bot(tmp_path / "random")])
    victim = marked_bot()
    assert victim is not None
    os.kill(victim, signal.SIGSTOP)
    try:
        thread.join(60)  # the referee gives up once the stop outlasts its bound
    finally:
        with contextlib.suppress(ProcessLookupError):  # the match's end killed it
            os.kill(victim, signal.SIGCONT)
    assert len(outcome) == 1 and isinstance(outcome[0], ExternalStopError), outcome
    assert isinstance(outcome[0], InfrastructureError) and "stopped from outside" in str(outcome[0])
    assert outcome[0].seat == 0
    assert survivors() == {}
