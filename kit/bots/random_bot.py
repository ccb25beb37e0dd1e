#!/usr/bin/env python3
"""Reference bot `random`: picks uniformly among the legal moves.

A complete bot for every Arbiter game in a few lines of standard-library
Python. It reads one JSON message per line on stdin and answers on stdout
(see docs/bots.md). Its choices are seeded from the match id and its seat,
so replaying a match with the same id gives the same moves.
"""

import json
import random
import sys


def main() -> None:
    rng = random.Random(0)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            rng.seed(f"{message.get('match', '')}:{message.get('seat', 0)}")
            reply = {"type": "ready", "name": "random", "version": "1"}
        elif kind == "turn":
            reply = {"move": rng.choice(message["legal_moves"])}
        elif kind == "end":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
