"""The reference bots' strength ladder (docs/bots.md): a seeded round robin of random, greedy and search.

    python -m bench.ladder [--game gamesup] [--games 20] [--seed 1]

Every pair plays ``--games`` games through the referee and the sandbox, the seats
swapped every other game, game i seeded ``seed + i``; the table gives each pair's
result from the first bot's side, its score and the Elo difference with a 95%
interval (the local runner's summary).  Not part of ``make bench``: it measures
strength, not speed.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from collections.abc import Sequence

from kit import REFERENCE_BOTS
from workers.match import MatchSpec
from workers.packages.archive import program_from_directory
from workers.referee import local
from workers.referee.play import play_match
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.start import BotProgram

LADDER = {
    "random": BotProgram(directory=REFERENCE_BOTS, command=("python3", "random_bot.py")),
    "greedy": program_from_directory(REFERENCE_BOTS / "greedy"),
    "search": program_from_directory(REFERENCE_BOTS / "search"),
}


def pair_points(game: str, first: BotProgram, second: BotProgram, games: int, seed: int) -> list[float]:
    """The first bot's points (1, 0.5, 0) in each game against the second."""
    limits = SandboxLimits.from_env()
    points = []
    for i in range(games):
        order = local.seat_order(i, 2)
        spec = MatchSpec(match_id=f"ladder-{seed + i}", engine_id=game, options={}, seed=seed + i, seats=2)
        record = play_match(spec, [(first, second)[b] for b in order], limits=limits)
        points.append(local.points_for_first(record, order))
    return points


def _elo(x: float) -> str:
    return f"{x + 0.0:+.0f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def main(argv: Sequence[str] | None = None) -> int:
    """Play the round robin and print the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.ladder", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="gamesup")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print("| pair | wins | draws | losses | score | Elo (95%) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for (name_a, bot_a), (name_b, bot_b) in itertools.combinations(reversed(LADDER.items()), 2):
        points = pair_points(args.game, bot_a, bot_b, args.games, args.seed)
        stats = local.summary(points)
        wins, draws = points.count(1.0), points.count(0.5)
        elo = f"{_elo(stats['elo'])} ({_elo(stats['elo_low'])} .. {_elo(stats['elo_high'])})"
        print(
            f"| {name_a} vs {name_b} | {wins} | {draws} | {len(points) - wins - draws} | {stats['score']:.2f} | {elo} |"
        )
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
