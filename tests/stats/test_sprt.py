"""Pentanomial SPRT: counts, LLR, bounds, decisions, and error rates on simulated versions."""

from __future__ import annotations

import math
import random

import pytest

from tests.stats.simulate import pair_scores
from tournaments.ratings.stats import Decision, Sprt, bounds, counts, decide, expected_score, llr


def test_bounds_are_walds() -> None:
    lower, upper = bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95))
    assert upper == pytest.approx(math.log(0.95 / 0.05))
    with pytest.raises(ValueError):
        bounds(0.0, 0.05)


def test_counts_from_pairs() -> None:
    data = counts([(1, 1), (1, 0.5), (0.5, 0.5), (0, 1), (0, 0.5), (0, 0)])
    assert (data.wins, data.draws, data.losses) == (4, 4, 4)
    assert data.pentanomial == (1, 1, 2, 1, 1)
    assert data.pairs == 6 and data.games == 12
    with pytest.raises(ValueError):
        counts([(1, 0.25)])


def test_llr_follows_the_normal_approximation() -> None:
    penta = [10, 40, 100, 60, 20]
    n = sum(penta)
    xs = [0, 0.25, 0.5, 0.75, 1]
    mean = sum(c * x for c, x in zip(penta, xs, strict=True)) / n
    var = sum(c * (x - mean) ** 2 for c, x in zip(penta, xs, strict=True)) / n
    s0, s1 = expected_score(0), expected_score(10)
    assert llr(penta, 0, 10) == pytest.approx(n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var), rel=1e-6)
    # Mirror image: a worse version gives a negative LLR.
    assert llr(penta[::-1], 0, 10) < 0 < llr(penta, 0, 10)
    assert llr([0, 0, 0, 0, 0]) == 0.0


def test_decisions_min_pairs_and_cap() -> None:
    assert decide(3.0, -2.9, 2.9, pairs=50) is Decision.H1
    assert decide(-3.0, -2.9, 2.9, pairs=50) is Decision.H0
    assert decide(0.0, -2.9, 2.9, pairs=50) is Decision.CONTINUE
    assert decide(9.0, -2.9, 2.9, pairs=3) is Decision.CONTINUE  # too few pairs to trust
    assert decide(0.0, -2.9, 2.9, pairs=100, max_pairs=100) is Decision.INCONCLUSIVE
    # A handful of identical pairs does not settle anything.
    assert Sprt().status([(0.5, 0.5)] * 5).decision is Decision.CONTINUE
    test = Sprt(elo0=0, elo1=10, max_games=40)
    status = test.status([(1, 1), (0, 0), (1, 0), (0.5, 0.5)] * 5)
    assert status.decision is Decision.INCONCLUSIVE
    assert status.to_json()["pentanomial"] == [5, 0, 10, 0, 5]
    # Pairs that always split (the seat decides) have almost no variance:
    # ten of them are strong evidence of no difference.
    assert Sprt().status([(1, 0), (0, 1)] * 5).decision is Decision.H0
    with pytest.raises(ValueError):
        Sprt(elo0=5, elo1=5)


def _run(rng: random.Random, test: Sprt, true_elo: float, check_every: int) -> Decision:
    """Play pairs until the test stops; the LLR is looked at every ``check_every`` pairs."""
    penta = [0] * 5
    lower, upper = bounds(test.alpha, test.beta)
    pairs = 0
    while True:
        a, b = pair_scores(rng, true_elo)
        penta[int(2 * (a + b))] += 1
        pairs += 1
        if pairs % check_every == 0 or (test.max_pairs is not None and pairs >= test.max_pairs):
            decision = decide(
                llr(penta, test.elo0, test.elo1),
                lower,
                upper,
                pairs=pairs,
                max_pairs=test.max_pairs,
                min_pairs=test.min_pairs,
            )
            if decision is not Decision.CONTINUE:
                return decision


def _error_rates(runs: int, seed: int, test: Sprt, check_every: int) -> tuple[float, float]:
    """(false positive rate at elo0, false negative rate at elo1); inconclusive runs count as errors."""
    rng = random.Random(seed)
    false_positive = sum(_run(rng, test, test.elo0, check_every) is not Decision.H0 for _ in range(runs))
    false_negative = sum(_run(rng, test, test.elo1, check_every) is not Decision.H1 for _ in range(runs))
    return false_positive / runs, false_negative / runs


def test_error_rates_fast() -> None:
    # A wide gap (0 vs 40 Elo) keeps runs short: about 150 pairs each.
    fp, fn = _error_rates(150, seed=1, test=Sprt(elo0=0, elo1=40, max_games=None), check_every=1)
    assert fp <= 0.1 and fn <= 0.1


@pytest.mark.slow
def test_error_rates_at_the_default_hypotheses() -> None:
    fp, fn = _error_rates(300, seed=2, test=Sprt(max_games=None), check_every=4)
    assert fp <= 0.08 and fn <= 0.08
