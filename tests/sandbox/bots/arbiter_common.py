"""Shared by the hostile test bots: the protocol loop and reporting on stderr.

A hostile bot reports what it managed to do as ``LEAK:<what>`` lines (which
the tests forbid) and harmless facts as ``TAG:<value>`` lines.
"""

import json
import os
import sys

PARAMS = {}
if os.path.exists("params.json"):
    with open("params.json") as f:
        PARAMS = json.load(f)


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def report(tag, text):
    sys.stderr.write(f"{tag}:{text}\n")
    sys.stderr.flush()


def leak(text):
    report("LEAK", text)


def first_move(msg):
    return msg["legal_moves"][0]


def play(on_start=None, on_turn=first_move):
    """Answer ready, then each turn with ``on_turn(msg)`` (None: answer nothing)."""
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "start":
            if on_start:
                on_start(msg)
            send({"type": "ready"})
        elif msg["type"] == "turn":
            move = on_turn(msg)
            if move is not None:
                send({"move": move})
        elif msg["type"] == "end":
            return
