"""A bot that calls itself ``bwrap`` and stalls is timed out like any other: names prove nothing.

The referee tells bubblewrap's processes from the bot's by the kernel's family
tree, never by a name the bot can set (``prctl(PR_SET_NAME)``, or writing
``/proc/self/comm``).  Real bots through the real sandbox.
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


@pytest.mark.parametrize("how", ["prctl", "comm"])
def test_a_stalled_bot_named_bwrap_is_a_timeout(tmp_path: Path, limits: SandboxLimits, how: str) -> None:
    directory = tmp_path / "renamed"
    directory.mkdir()
    shutil.copy(BOTS / "renamed.py", directory / "main.py")
    shutil.copy(BOTS / "arbiter_common.py", directory / "arbiter_common.py")
    (directory / "params.json").write_text(json.dumps({"how": how}))
    bot = BotProgram(directory=directory, command=("python3", "main.py"))
    spec = MatchSpec("", "count-test", {"target": 8}, 3, 2, Clock(move_ms=300, game_ms=5000, startup_ms=4000))
    record = play_match(spec, [bot, random_bot(tmp_path / "random")], limits=limits)
    mine = record.seat_records[0]
    assert "NAME:bwrap" in mine.stderr.splitlines(), mine.stderr[-500:]  # the rename took
    assert mine.status == "timeout", record.reason  # today: crash ("closed its output")
    assert "real time" in mine.detail, mine.detail
    assert record.ranks == [2, 1] and record.seat_records[1].status == "ok"
    assert survivors() == {}
