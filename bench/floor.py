"""The floor under ``bench.e2e``: a minimal referee over bare ``python3`` bots, the same engine.

No sandbox, no clocks, no checks beyond the engine's own: each match starts two
bare processes of the bot, speaks the protocol's start, turn and end messages
with them over pipes, and applies their moves to the engine's state.  With the
same match ids and seeds as the service's matches the bots make the very same
moves, so what the project's referee spends above this is its own cost.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import IO, Any

import engines
from workers.match import Clock
from workers.sandbox.launcher import bot_env


def _send(pipe: IO[bytes], message: dict[str, Any]) -> None:
    pipe.write(json.dumps(message).encode() + b"\n")
    pipe.flush()


def _ask(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> dict[str, Any]:
    assert proc.stdin is not None and proc.stdout is not None
    _send(proc.stdin, message)
    reply: dict[str, Any] = json.loads(proc.stdout.readline())
    return reply


def floor_match(command: list[str], cwd: Path, engine_id: str, match_id: str, seed: int, clock: Clock) -> list[int]:
    """Play one match between two bare processes of ``command``; returns the ranks."""
    engine = engines.get_engine(engine_id)
    options = engine.validate_options({}, 2)
    teams = engine.teams(2, options)
    state = engine.new_state(options, seed=seed, seats=2)
    # The environment a bot gets (the distribution's python3 first), nothing of the sandbox.
    env = bot_env(sandboxed=False)
    bots = [subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE) for _ in "ab"]
    try:
        for seat, bot in enumerate(bots):
            _ask(bot, {"type": "start", "protocol": 1, "match": match_id, "game": engine_id, "options": options,
                       "seat": seat, "seats": 2, "teams": teams, "clock": clock.to_json()})  # fmt: skip
        while not state.is_terminal():
            mover = state.to_move()
            assert mover is not None
            turn = {"type": "turn", "ply": state.ply, "observation": state.observation(mover),
                    "legal_moves": state.legal_moves(), "clock": {"move_ms": clock.move_ms}}  # fmt: skip
            state.apply(_ask(bots[mover], turn)["move"])
        result = state.result()
        assert result is not None
        for bot in bots:
            assert bot.stdin is not None
            _send(bot.stdin, {"type": "end", "result": {"ranks": list(result.ranks)}, "reason": result.reason})
            bot.stdin.close()
        return list(result.ranks)
    finally:
        for bot in bots:
            try:
                bot.wait(10)
            except subprocess.TimeoutExpired:
                bot.kill()
                bot.wait()
            assert bot.stdout is not None
            bot.stdout.close()


def floor_chunk(job: tuple[str, list[str], str, list[tuple[str, int]], Clock]) -> float:
    """Play the given (match id, seed) pairs one after the other; returns the seconds taken."""
    directory, command, engine_id, matches, clock = job
    start = time.perf_counter()
    for match_id, seed in matches:
        floor_match(command, Path(directory), engine_id, match_id, seed, clock)
    return time.perf_counter() - start
