"""Pure statistics for ratings: whole-history Bradley-Terry fits and the version SPRT.

Nothing here imports Django (tests/stats checks it), so the code can be
tested and benchmarked on its own.
"""

from tournaments.ratings.stats.bradley_terry import ELO_PER_NATURAL, Fit, Game, PlayerFit, fit
from tournaments.ratings.stats.sprt import Counts, Decision, Sprt, Status, bounds, counts, decide, expected_score, llr

__all__ = [
    "ELO_PER_NATURAL",
    "Counts",
    "Decision",
    "Fit",
    "Game",
    "PlayerFit",
    "Sprt",
    "Status",
    "bounds",
    "counts",
    "decide",
    "expected_score",
    "fit",
    "llr",
]
