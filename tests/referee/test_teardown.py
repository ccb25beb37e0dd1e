"""A match's record comes back before its bots' processes are waited for, and nothing sleeps on the way.

The bots are killed at once; waiting until the kernel has let go of every process
of a slot, and giving the slot back, happen in the worker's ending thread
(``workers.sandbox.ending``).  The caller's thread neither sleeps nor waits for a
group to empty, even when a bot left a child behind; the slot is free again only
once that child is gone.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from types import FrameType
from typing import Any

from tests.referee.support import FAST, random_bot, survivors, write_bot
from workers.match import MatchSpec
from workers.referee.play import play_match
from workers.sandbox import ending, slots
from workers.sandbox.group import SlotGroup
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.process import BotProcess

# Leaves a double-forked setsid child behind (it would live on), then plays the first legal move.
LEAVES_A_CHILD = """
import json, os, sys, time
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                for fd in (0, 1, 2):
                    os.close(fd)
                while True:  # bot code: a child left behind, asleep
                    time.sleep(0.05)
            os._exit(0)
        os.wait()
        sys.stderr.write("CHILD:left\\n"); sys.stderr.flush()
        send({"type": "ready", "name": "parent", "version": "1"})
    elif msg["type"] == "turn":
        send({"move": msg["legal_moves"][0]})
    elif msg["type"] == "end":
        break
"""

# What waits for a bot's processes to go: none of it may run on the match's own thread.
WAITS = {SlotGroup.wait_empty.__code__, slots.kill_uid.__code__, BotProcess.kill.__code__}


def test_the_record_comes_back_with_no_sleep_nor_wait_for_a_bot_that_left_a_child(
    tmp_path: Path, limits: SandboxLimits
) -> None:
    waited: list[str] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "c_call" and arg is time.sleep:
            waited.append("time.sleep")
        elif event == "call" and frame.f_code in WAITS:
            waited.append(frame.f_code.co_qualname)

    bots = [write_bot(tmp_path / "parent", LEAVES_A_CHILD), random_bot(tmp_path / "random")]
    spec = MatchSpec(match_id="teardown", engine_id="count-test", options={"target": 6}, seed=5, seats=2, clock=FAST)
    sys.setprofile(profile)  # this thread only: the ending thread may wait as it likes
    try:
        record = play_match(spec, bots, limits=limits)
    finally:
        sys.setprofile(None)

    assert [s.status for s in record.seat_records] == ["ok", "ok"]
    assert "CHILD:left" in record.seat_records[0].stderr
    assert waited == []
    # The ending thread waits the child out on the kernel's word, then gives the slots back.
    assert ending.settle(30)
    assert survivors() == {}
