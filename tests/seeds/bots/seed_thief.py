#!/usr/bin/env python3
"""A Sequence bot that hunts for its match's seed, as a hostile author would (tests/seeds).

Seeds were once the first 7 bytes of a SHA-256 of public numbers:
``arbiter:<tournament>:<index>``, ``arbiter:challenge:<challenge>:<game>`` and
``arbiter:version-test:<test>:<pair>``.  The engines are in every sandbox, so
a bot can deal any seed it guesses and compare the deal with its own hand.
On its first turn this bot deals every seed of those schemes for ids 1 to 59
and numbers 0 to 39 (7,080 of them) and reports on stderr what it found,
one of::

    seed-thief: found seed <n>; seat <s> holds <cards>; ...
    seed-thief: nothing in 7080 candidate seeds for a hand of <k> cards

It also reports every number of ten digits or more that any message to it
held (``seed-thief: numbers seen: ...``), so that a test can look for the
match's seed among them.  It plays the first legal move every turn.

The test imports ``find_seed`` to run the same hunt in its own process.
"""

import hashlib
import json
import re
import sys

from engines import get_engine

SCHEMES = ("arbiter:{}:{}", "arbiter:challenge:{}:{}", "arbiter:version-test:{}:{}")
IDS = range(1, 60)
NUMBERS = range(40)
LONG_NUMBER = re.compile(r"\d{10,}")


def candidate_seeds():
    """Every seed the old schemes gave for small ids: what public data alone allows."""
    for scheme in SCHEMES:
        for first in IDS:
            for second in NUMBERS:
                digest = hashlib.sha256(scheme.format(first, second).encode()).digest()
                yield int.from_bytes(digest[:7], "big")


def deal(seed, seats, options):
    """Every seat's starting hand under ``seed``."""
    state = get_engine("sequence").new_state(options, seed=seed, seats=seats)
    return [state.observation(s)["hand"] for s in range(seats)]


def find_seed(hand, seat, seats, options):
    """The candidate seed that deals ``hand`` to ``seat``, or None; and how many candidates were tried."""
    tried = 0
    for seed in candidate_seeds():
        tried += 1
        if deal(seed, seats, options)[seat] == hand:
            return seed, tried
    return None, tried


def report(text):
    sys.stderr.write(f"seed-thief: {text}\n")
    sys.stderr.flush()


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def hunt(start, observation):
    hand, seat, seats, options = observation["hand"], start["seat"], start["seats"], start["options"]
    seed, tried = find_seed(hand, seat, seats, options)
    if seed is None:
        report(f"nothing in {tried} candidate seeds for a hand of {len(hand)} cards")
        return
    hands = "; ".join(f"seat {s} holds {' '.join(h)}" for s, h in enumerate(deal(seed, seats, options)))
    report(f"found seed {seed}; {hands}")


def main():
    start = {}
    seen = set()
    hunted = False
    for line in sys.stdin:
        numbers = set(LONG_NUMBER.findall(line)) - seen
        if numbers:
            seen |= numbers
            report("numbers seen: " + " ".join(sorted(numbers)))
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            start = message
            send({"type": "ready", "name": "seed-thief", "version": "1"})
        elif kind == "turn":
            if not hunted:
                hunted = True
                hunt(start, message["observation"])
            send({"move": message["legal_moves"][0]})
        elif kind == "end":
            return


if __name__ == "__main__":
    main()
