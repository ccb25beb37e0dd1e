#!/usr/bin/env python3
"""Reference bot `greedy`: the best-looking move one ply ahead.

For each game the file ``heuristic_<game>.py`` next to this one defines
``score(observation, move, seat) -> float``: the value of ``move`` for
``seat`` judged from the observation alone (one-ply lookahead on the game's
score where the bot can compute it, else a simple evaluation). The bot plays
the highest-scoring move, breaking ties at random (seeded from the match id).
A game without a heuristic file is played at random.

Standard library only, so it runs in the sandbox; packaged as a directory
with ``main.py`` it is also the example of a multi-file bot.
"""

import importlib.util
import json
import pathlib
import random
import sys

HERE = pathlib.Path(__file__).resolve().parent


def load_heuristic(game: str):
    """The ``score`` function for ``game``, or None when there is none."""
    path = HERE / f"heuristic_{game}.py"
    if not game.isidentifier() or not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location(f"heuristic_{game}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, "score", None)


def choose(score, observation: dict, moves: list, seat: int, rng: random.Random) -> str:
    """The highest-scoring move; ties broken by ``rng``."""
    if score is None or len(moves) == 1:
        return rng.choice(moves)
    best, best_value = [], None
    for move in moves:
        value = score(observation, move, seat)
        if best_value is None or value > best_value:
            best, best_value = [move], value
        elif value == best_value:
            best.append(move)
    return rng.choice(best)


def main() -> None:
    rng = random.Random(0)
    score = None
    seat = 0
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            seat = message.get("seat", 0)
            rng.seed(f"{message.get('match', '')}:{seat}")
            score = load_heuristic(message.get("game", ""))
            reply = {"type": "ready", "name": "greedy", "version": "1"}
        elif kind == "turn":
            reply = {"move": choose(score, message["observation"], message["legal_moves"], seat, rng)}
        elif kind == "end":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
