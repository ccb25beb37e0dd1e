#!/usr/bin/env python3
"""Reference bot `search`: two plies of look-ahead with the game engines, for gamesup.

An example of a bot that imports the engines inside the sandbox: every turn
it rebuilds the position from the observation (``engines.observe``), tries
each of its moves and each answer of the opponent, and plays the move whose
worst answer leaves it furthest ahead on the score (a win counts above any
score, a loss below).  Other games are played at random: in pileup, for
one, the plain score is a poor guide and greedy's heuristic does better.  Ties are broken at
random, seeded from the match id.  A CPU-time budget per move keeps it inside
the clock: when the budget runs out, moves not yet searched are judged by
one ply only.
"""

import json
import random
import sys
import time

from engines.observe import state_from_observation

WIN = 1_000_000.0
# The share of the move's CPU budget the search may use (the rest: reading, writing, Python's slack).
BUDGET_SHARE = 0.4
SEARCHED = ("gamesup",)


def value(state, seat: int) -> float:
    """The position for ``seat``: a win or loss once the game is over, else the score lead."""
    if state.is_terminal():
        ranks = state.result().ranks
        mine, theirs = ranks[seat], min(r for s, r in enumerate(ranks) if s != seat)
        return WIN if mine < theirs else -WIN if mine > theirs else 0.0
    scores = state.public_observation()["scores"]
    return float(scores[seat] - max(s for i, s in enumerate(scores) if i != seat))


def after(state, move: str, seat: int) -> float:
    """The value for ``seat`` of the position after ``move``."""
    child = state.clone()
    child.apply(move)
    return value(child, seat)


def search(state, seat: int, deadline: float, rng: random.Random) -> str:
    """The move whose worst reply is best for ``seat`` (one ply only once past ``deadline``)."""
    best, best_value = [], None
    for move in state.legal_moves():
        child = state.clone()
        child.apply(move)
        worst = value(child, seat)
        if not child.is_terminal() and child.to_move() != seat and time.process_time() < deadline:
            worst = min(after(child, reply, seat) for reply in child.legal_moves())
        if best_value is None or worst > best_value:
            best, best_value = [move], worst
        elif worst == best_value:
            best.append(move)
    return rng.choice(best)


def main() -> None:
    rng = random.Random(0)
    seat, game = 0, ""
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            seat, game = message["seat"], message["game"]
            rng.seed(f"{message.get('match', '')}:{seat}")
            reply = {"type": "ready", "name": "search", "version": "1"}
        elif kind == "turn":
            moves = message["legal_moves"]
            clock = message["clock"]
            budget_s = min(clock["move_ms"], clock["game_left_ms"] / 20) / 1000 * BUDGET_SHARE
            if game in SEARCHED and len(moves) > 1:
                state = state_from_observation(game, message["observation"])
                move = search(state, seat, time.process_time() + budget_s, rng)
            else:
                move = rng.choice(moves)
            reply = {"move": move}
        elif kind == "end":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
