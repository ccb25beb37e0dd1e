"""What pairing a Swiss round costs for a big field, against sorting the same field, in one run.

Pure: no database, nothing written.  ``--bots`` players (1,000) in seed order.
Timed in ``--rounds`` interleaved rounds, each timing the three one after the
other, so that a moment of load falls on all of them alike:

1. baseline: sorting the field by score and seed, the least any pairing does;
2. the first round (``swiss.swiss_pair``, everyone on zero): the target is
   under one second;
3. a late round: the field after ``--played`` rounds of seeded results (true
   strengths on the Elo scale), where score groups are small and many
   players have met, so the search backtracks more.

Prints min/median/max of each and the medians' ratios to the baseline.

    python -m bench.swiss [--bots 1000] [--played 9] [--rounds 7]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from tournaments.competitions.swiss import SwissPlayer, swiss_pair

TARGET_S = 1.0


def _field_after(bots: int, played: int, seed: int) -> list[SwissPlayer]:
    """The field after ``played`` rounds paired by ``swiss_pair``, results drawn from seeded strengths."""
    rng = random.Random(seed)
    strength = [rng.gauss(0.0, 200.0) for _ in range(bots)]
    score = [0.0] * bots
    met: list[set[int]] = [set() for _ in range(bots)]
    balance = [0] * bots
    byes = [0] * bots
    for number in range(1, played + 1):
        field = [SwissPlayer(score[i], frozenset(met[i]), balance[i], byes[i]) for i in range(bots)]
        paired = swiss_pair(field, round_number=number)
        if paired.bye is not None:
            byes[paired.bye] += 1
            score[paired.bye] += 1.0
        for a, b in paired.pairs:
            met[a].add(b)
            met[b].add(a)
            balance[a] += 1
            balance[b] -= 1
            won = rng.random() < 1.0 / (1.0 + 10.0 ** ((strength[b] - strength[a]) / 400.0))
            score[a if won else b] += 1.0
    return [SwissPlayer(score[i], frozenset(met[i]), balance[i], byes[i]) for i in range(bots)]


def _timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def _figures(name: str, times: list[float], baseline: float) -> str:
    low, mid, high = min(times), statistics.median(times), max(times)
    return (
        f"  {name:<34} min {low * 1000:8.2f} ms  median {mid * 1000:8.2f} ms  max {high * 1000:8.2f} ms"
        f"  ratio {mid / baseline:7.1f}x baseline"
    )


def main() -> None:
    """Time the baseline, the first round and a late round in interleaved rounds; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--played", type=int, default=9, help="rounds played before the late round")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved timing rounds")
    parser.add_argument("--seed", type=int, default=35)
    args = parser.parse_args()

    fresh = [SwissPlayer() for _ in range(args.bots)]
    late = _field_after(args.bots, args.played, args.seed)
    times: dict[str, list[float]] = {"baseline": [], "first": [], "late": []}
    for _ in range(args.rounds):
        times["baseline"].append(_timed(lambda: sorted(range(args.bots), key=lambda i: (-late[i].score, i))))
        times["first"].append(_timed(lambda: swiss_pair(fresh, round_number=1)))
        times["late"].append(_timed(lambda: swiss_pair(late, round_number=args.played + 1)))
    baseline = statistics.median(times["baseline"])
    print(f"{args.bots} bots, {args.rounds} interleaved rounds; the late round follows {args.played} played")
    print(_figures("baseline: sort the field", times["baseline"], baseline))
    print(_figures("first round paired", times["first"], baseline))
    print(_figures(f"round {args.played + 1} paired", times["late"], baseline))
    worst = max(times["first"])
    verdict = "target met" if worst < TARGET_S else "TARGET MISSED"
    print(f"  first round, slowest of {args.rounds}: {worst * 1000:.1f} ms (< {TARGET_S * 1000:.0f} ms): {verdict}")


if __name__ == "__main__":
    main()
