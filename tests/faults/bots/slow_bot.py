#!/usr/bin/env python3
"""A random bot that thinks for DELAY seconds before every move.

The fault tests rewrite the DELAY line before uploading it, so a match lasts
long enough for "in the middle of a match" to be a moment the test can hit.
"""

import json
import random
import sys
import time

DELAY = 0.0


def main() -> None:
    rng = random.Random(0)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            rng.seed(f"{message.get('match', '')}:{message.get('seat', 0)}")
            reply = {"type": "ready", "name": "slow", "version": "1"}
        elif kind == "turn":
            time.sleep(DELAY)
            reply = {"move": rng.choice(message["legal_moves"])}
        elif kind == "end":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
