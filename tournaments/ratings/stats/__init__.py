"""Pure statistics for ratings: whole-history Bradley-Terry fits and the version SPRT.

Nothing here imports Django (tests/stats checks it), so the code can be
tested and benchmarked on its own.
"""

from tournaments.ratings.stats.bradley_terry import ELO_PER_NATURAL, Fit, Game, PlayerFit, fit
from tournaments.ratings.stats.gsprt import llr_logistic, llr_normalized
from tournaments.ratings.stats.pool import pool_fit
from tournaments.ratings.stats.sprt import (
    Counts,
    Decision,
    EloModel,
    Overshoot,
    Sprt,
    Status,
    bounds,
    counts,
    decide,
    expected_score,
    llr,
)
from tournaments.ratings.stats.sprt_estimate import ELO_LIMIT, Estimate, estimate
from tournaments.ratings.stats.table import ErrorBar, LosMatrix

__all__ = [
    "ELO_LIMIT",
    "ELO_PER_NATURAL",
    "Counts",
    "Decision",
    "EloModel",
    "ErrorBar",
    "Estimate",
    "Fit",
    "Game",
    "LosMatrix",
    "Overshoot",
    "PlayerFit",
    "Sprt",
    "Status",
    "bounds",
    "counts",
    "decide",
    "estimate",
    "expected_score",
    "fit",
    "llr",
    "llr_logistic",
    "llr_normalized",
    "pool_fit",
]
