"""Random-playout speed per engine: plies per second on one core.

Each ply is what a referee does: list the legal moves, pick one, apply it.
The baseline, measured in the same run, is a loop that only picks from a
fixed list (the cost of the harness itself).

    python -m bench.engines [--seconds 3] [--game ID]
"""

from __future__ import annotations

import argparse
import random
import time

from engines import all_engines, get_engine


def plies_per_second(
    engine_id: str, seconds: float, seats: int | None = None, options: dict | None = None
) -> tuple[float, int]:
    """Play random games for about ``seconds``; return (plies/s, games)."""
    engine = get_engine(engine_id)
    plies = games = 0
    seed = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        rng = random.Random(seed)
        state = engine.new_state(options, seed=seed, seats=seats)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_moves()))
            plies += 1
        games += 1
        seed += 1
    return plies / (time.perf_counter() - start), games


def harness_baseline(seconds: float) -> float:
    """Picks per second from a fixed list: what the loop costs without any rules."""
    rng = random.Random(0)
    moves = [f"m{i}" for i in range(30)]
    n = 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        for _ in range(1000):
            rng.choice(moves)
        n += 1000
    return n / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--game", action="append", help="engine id (repeatable); default all")
    args = parser.parse_args(argv)
    base = harness_baseline(min(args.seconds, 1.0))
    print(f"baseline: harness alone {base:,.0f} picks/s")
    ids = args.game or [e.id for e in all_engines()]
    for engine_id in ids:
        engine = get_engine(engine_id)
        for seats, options in engine.configs():
            rate, games = plies_per_second(engine_id, args.seconds, seats, options)
            label = f"{engine_id} seats={seats} {options or ''}".strip()
            print(f"{label:<45} {rate:>10,.0f} plies/s  ({games} games; {base / rate:,.0f}x the harness cost per ply)")


if __name__ == "__main__":
    main()
