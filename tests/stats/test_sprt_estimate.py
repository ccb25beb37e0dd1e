"""The bias-corrected Elo estimate after an SPRT, against Fishtest's own analytics, and on simulated tests."""

from __future__ import annotations

import random
import statistics

import pytest

from tests.stats.simulate import pair_law, run_sprt, sampler
from tournaments.ratings.stats import EloModel, Sprt, estimate
from tournaments.ratings.stats.brownian import outcome_cdf
from tournaments.ratings.stats.gsprt import logistic_elo, logistic_score

# Counts, elo0, elo1, model, then (elo, low, high, LOS) from Fishtest's sprt analytics at 95%
# (computed with its own code outside this project); the first three stopped past a bound.
FISHTEST_ESTIMATES = [
    (
        [5, 20, 60, 60, 30],
        0,
        40,
        "logistic",
        (84.29128862338345, 20.79424963437896, 153.0132689392777, 0.9954315328490557),
    ),
    (
        [30, 60, 60, 20, 5],
        0,
        40,
        "logistic",
        (-84.2770266681766, -171.62858787048842, -5.882078770247543, 0.01746036826709918),
    ),
    (
        [60, 0, 40],
        0,
        20,
        "logistic",
        (-70.43577980566866, -143.9076400219371, -2.7668316522617764, 0.020613437792720183),
    ),
    (
        [10, 40, 100, 60, 20],
        0,
        10,
        "logistic",
        (30.28500214110945, 8.601770766132606, 52.20586383395794, 0.9969278878752181),
    ),
    (
        [3, 12, 30, 14, 5],
        0,
        40,
        "logistic",
        (16.366421538858816, -24.079173499838685, 57.31223356707609, 0.7862850228745478),
    ),
    (
        [1187, 7410, 13475, 7378, 1164],
        -3,
        1,
        "logistic",
        (-0.9006450688603225, -3.4872758217797513, 1.5314225737877294, 0.21742426391050904),
    ),
    (
        [10789, 19328, 33806, 19402, 10543],
        -3,
        1,
        "logistic",
        (-0.9925365594552716, -3.488492131294004, 1.4885858954857965, 0.18803479310880994),
    ),
    (
        [5, 30, 60, 45, 10],
        0,
        10,
        "logistic",
        (29.020266723754077, 2.989712483598107, 55.38060658078468, 0.9855794236273997),
    ),
    (
        [39, 2226, 31451, 2412, 40],
        0.764,
        3.439,
        "normalized",
        (0.8651598534526277, 0.16827135251642789, 1.5405826879352602, 0.9919993674519018),
    ),
    (
        [20, 50, 80, 30, 5],
        0,
        10,
        "normalized",
        (-47.2397201280407, -71.6985824178233, -23.238263356339427, 5.3295285009974325e-05),
    ),
    (
        [2, 10, 45, 12, 1],
        0,
        40,
        "normalized",
        (0.005290237088689022, -28.42131406466106, 28.434012911994976, 0.5001458363363926),
    ),
]


@pytest.mark.parametrize(("results", "elo0", "elo1", "model", "expected"), FISHTEST_ESTIMATES)
def test_estimate_matches_fishtest(
    results: list[int], elo0: float, elo1: float, model: str, expected: tuple[float, float, float, float]
) -> None:
    test = Sprt(elo0=elo0, elo1=elo1, model=EloModel(model), paired=len(results) == 5)
    got = estimate(test, results)
    assert got is not None
    assert (got.elo, got.low, got.high) == pytest.approx(expected[:3], abs=1e-6)
    assert got.los == pytest.approx(expected[3], abs=1e-9)
    assert got.to_json()["elo_low"] == got.low


def test_estimate_edges() -> None:
    assert estimate(Sprt(), [0, 0, 0, 0, 0]) is None
    with pytest.raises(ValueError):
        estimate(Sprt(), [1, 2, 3, 2, 1], level=1.0)
    narrow = estimate(Sprt(), [5, 30, 60, 45, 10], level=0.5)
    wide = estimate(Sprt(), [5, 30, 60, 45, 10], level=0.99)
    assert wide.low < narrow.low < narrow.elo < narrow.high < wide.high
    assert logistic_elo(logistic_score(37.5)) == pytest.approx(37.5)


def test_brownian_outcome_probability() -> None:
    # Without drift and far from both bounds, the walk ends below its start half of the time.
    assert outcome_cdf(-50.0, 50.0, 0.0, 1.0, 1.0, 0.0) == pytest.approx(0.5, abs=1e-9)
    # More drift: fewer outcomes worse than a given one; both formulas agree where they meet.
    probs = [outcome_cdf(-3.0, 3.0, mu, 0.04, 50.0, 1.0) for mu in (-0.05, 0.0, 0.05)]
    assert probs == sorted(probs, reverse=True)
    series = outcome_cdf(-3.0, 3.0, 0.01, 0.04, 30.0, 0.5)  # var t / width^2 = 0.033: the series
    siegmund = outcome_cdf(-3.0, 3.0, 0.01, 0.04, 8.0, 0.5)  # 0.009: Siegmund's approximation
    assert 0.0 < siegmund < 1.0 and 0.0 < series < 1.0
    with pytest.raises(ValueError):
        outcome_cdf(-3.0, 3.0, 0.0, 0.0, 1.0, 0.0)


def _stopped_estimates(runs: int, seed: int, test: Sprt, true_elo: float) -> tuple[list[float], list[float]]:
    """Seeded tests run until H0 or H1: (plain Elo from the mean score, corrected estimate) per run."""
    rng = random.Random(seed)
    law = sampler(pair_law(true_elo, draw_share=0.3))
    plain, corrected = [], []
    for _ in range(runs):
        _, cells = run_sprt(rng, test, law)
        mean = sum(k * c for k, c in enumerate(cells)) / (4 * sum(cells))
        plain.append(logistic_elo(mean))
        corrected.append(estimate(test, cells).elo)
    return plain, corrected


def test_corrected_estimate_after_a_stop() -> None:
    plain, corrected = _stopped_estimates(300, seed=7, test=Sprt(elo0=0, elo1=40, max_games=None), true_elo=40.0)
    # Stopped tests overstate the difference on average; the median-unbiased estimate does not.
    assert statistics.fmean(plain) > 44.0
    assert abs(statistics.median(corrected) - 40.0) < 3.0
    assert abs(statistics.median(corrected) - 40.0) < abs(statistics.fmean(plain) - 40.0)
