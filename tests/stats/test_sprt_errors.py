"""SPRT error rates on seeded simulated versions: alpha at elo0 and beta at elo1 within 1.5 points of 5%.

Each run plays seat-swapped pairs drawn from a known law and looks after
every pair, as the service does, with the overshoot correction.  Two kinds
of game: an ordinary one (a 30 Elo first-seat edge, some draws) and one the
seat decides (a 400 Elo edge, no draws: most pairs split 1-1, which the old
normal approximation mistook for near-certain equality).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence

import pytest

import tournaments.ratings.stats.sprt as sprt_module
from tests.stats.simulate import pair_law, run_sprt, sampler
from tournaments.ratings.stats import Decision, Sprt

ORDINARY = {"edge": 30.0, "draw_share": 0.3}
SEAT_DECIDES = {"edge": 400.0, "draw_share": 0.0}


def _rates(test: Sprt, game: dict[str, float], runs: int, seed: int) -> tuple[float, float]:
    """(share accepting H1 at elo0, share accepting H0 at elo1)."""
    rng = random.Random(seed)
    at_elo0 = sampler(pair_law(test.elo0, **game))
    at_elo1 = sampler(pair_law(test.elo1, **game))
    alpha = sum(run_sprt(rng, test, at_elo0)[0].decision is Decision.H1 for _ in range(runs))
    beta = sum(run_sprt(rng, test, at_elo1)[0].decision is Decision.H0 for _ in range(runs))
    return alpha / runs, beta / runs


@pytest.fixture
def memo_llr(monkeypatch: pytest.MonkeyPatch) -> None:
    """Remember the LLR of counts already seen: runs of one law revisit the same counts a lot
    (nine looks in ten when the seat decides), and the LLR is a pure function of them."""
    exact = sprt_module.llr

    @functools.cache
    def remembered(results: tuple[int, ...], elo0: float, elo1: float, model: str) -> float:
        return exact(results, elo0, elo1, model)

    def llr(results: Sequence[float], elo0: float = 0.0, elo1: float = 10.0, model: str = "logistic") -> float:
        return remembered(tuple(results), elo0, elo1, model)

    monkeypatch.setattr(sprt_module, "llr", llr)


def test_seat_decided_pairs_are_mostly_splits() -> None:
    law = pair_law(0.0, **SEAT_DECIDES)
    assert law[2] > 0.8 and law[1] == law[3] == 0.0


@pytest.mark.usefixtures("memo_llr")
@pytest.mark.parametrize(("game", "runs"), [(ORDINARY, 1000), (SEAT_DECIDES, 3000)], ids=["ordinary", "seat-decides"])
def test_error_rates_are_nominal(game: dict[str, float], runs: int) -> None:
    test = Sprt(elo0=0, elo1=40, max_games=None)
    alpha, beta = _rates(test, game, runs=runs, seed=1)
    assert abs(alpha - test.alpha) <= 0.015
    assert abs(beta - test.beta) <= 0.015


@pytest.mark.slow
@pytest.mark.usefixtures("memo_llr")
@pytest.mark.parametrize(("game", "runs"), [(ORDINARY, 2000), (SEAT_DECIDES, 4000)], ids=["ordinary", "seat-decides"])
def test_error_rates_are_nominal_long(game: dict[str, float], runs: int) -> None:
    test = Sprt(elo0=0, elo1=40, max_games=None)
    alpha, beta = _rates(test, game, runs=runs, seed=2)
    assert abs(alpha - test.alpha) <= 0.015
    assert abs(beta - test.beta) <= 0.015
