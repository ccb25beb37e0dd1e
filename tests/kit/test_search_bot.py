"""The reference search bot (kit/bots/search) imports the engines in the real sandbox and beats greedy.

The margin is the one docs/bots.md states: at least 10 wins in 12 seeded games of gamesup,
seats swapped every other game.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from kit import REFERENCE_BOTS
from workers.match import Clock, MatchSpec, SeatStatus
from workers.packages.archive import program_from_directory
from workers.referee import local
from workers.referee.play import play_match
from workers.sandbox import launcher
from workers.sandbox.limits import SandboxLimits

# A bot that names itself after the engine it imported and plays the engine's last legal move.
IMPORTER = """
import json, sys
import engines
from engines.observe import state_from_observation
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        print(json.dumps({"type": "ready", "name": engines.get_engine(msg["game"]).id}), flush=True)
    elif msg["type"] == "turn":
        state = state_from_observation("gamesup", msg["observation"])
        print(json.dumps({"move": state.legal_moves()[-1]}), flush=True)
    else:
        break
"""
GAMES = 12
WINS_AT_LEAST = 10


def test_search_beats_greedy_at_gamesup(limits: SandboxLimits) -> None:
    search = program_from_directory(REFERENCE_BOTS / "search")
    greedy = program_from_directory(REFERENCE_BOTS / "greedy")
    points = []
    for i in range(GAMES):
        order = local.seat_order(i, 2)
        spec = MatchSpec(match_id=f"ladder-{i}", engine_id="gamesup", options={}, seed=i + 1, seats=2, clock=Clock())
        record = play_match(spec, [(search, greedy)[b] for b in order], limits=limits)
        assert [s.status for s in record.seat_records] == [SeatStatus.OK, SeatStatus.OK], record.seat_records
        points.append(local.points_for_first(record, order))
    assert points.count(1.0) >= WINS_AT_LEAST, points


def test_a_bot_may_import_the_engines(limits: SandboxLimits, tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "main.py").write_text(IMPORTER)
    spec = MatchSpec(match_id="imports", engine_id="gamesup", options={}, seed=3, seats=2, clock=Clock())
    greedy = program_from_directory(REFERENCE_BOTS / "greedy")
    record = play_match(spec, [program_from_directory(bot), greedy], limits=limits)
    assert record.sandboxed
    assert record.seat_records[0].status == SeatStatus.OK, record.seat_records[0]
    assert record.seat_records[0].name == "gamesup"


def test_unsandboxed_bots_find_the_engines_too(tmp_path: Path) -> None:
    env = launcher.bot_env(sandboxed=False)
    assert launcher.bot_env(sandboxed=True)["PYTHONPATH"] == "/arbiter"
    done = subprocess.run(
        ["python3", "-c", "import engines.observe; print(engines.observe.PERFECT_INFORMATION)"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "gamesup" in done.stdout
