"""Pure statistics for ratings: whole-history Bradley-Terry fits and the version SPRT.

Nothing here imports Django (tests/stats checks it), so the code can be
tested and benchmarked on its own.
"""

from tournaments.stats.bradley_terry import ELO_PER_NATURAL, Fit, Game, PlayerFit, fit
from tournaments.stats.sprt import Counts, Decision, Sprt, Status, bounds, counts, decide, expected_score, llr
from tournaments.stats.table import ErrorBar, LosMatrix

__all__ = [
    "ELO_PER_NATURAL",
    "Counts",
    "Decision",
    "ErrorBar",
    "Fit",
    "Game",
    "LosMatrix",
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
