#!/usr/bin/env python3
"""A starter bot for Arbiter (game: __GAME__).

It speaks the protocol (docs/bots.md): one JSON object per line on stdin, one
answer per line on stdout, flushed at once.  Debug output goes to stderr.
It plays a random legal move; make it stronger in ``choose_move``.
"""

import json
import random
import sys


def choose_move(observation: dict, legal_moves: list, seat: int, rng: random.Random) -> str:
    """The move to play.  Add your search here.

    ``observation`` is what your seat may see (the game's rules page lists its
    fields); ``legal_moves`` is every legal answer.  A good first step: score
    each move with a heuristic and keep the best; then look further ahead.
    """
    return rng.choice(legal_moves)


def main() -> None:
    rng = random.Random(0)
    seat = 0
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            seat = message["seat"]
            # Seeded from the match, so the same match replays the same way.
            rng.seed(f"{message['match']}:{seat}")
            reply = {"type": "ready", "name": "__NAME__", "version": "1"}
        elif kind == "turn":
            reply = {"move": choose_move(message["observation"], message["legal_moves"], seat, rng)}
        elif kind == "end":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
