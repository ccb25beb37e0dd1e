"""SPRT: counts, the exact LLR against Fishtest's own values, bounds, overshoot, decisions."""

from __future__ import annotations

import math

import pytest

from tournaments.ratings.stats import (
    Counts,
    Decision,
    EloModel,
    Overshoot,
    Sprt,
    bounds,
    counts,
    decide,
    expected_score,
    llr,
)
from workers.config import SETTINGS

# Counts (lowest score first), elo0, elo1, then the LLR that Fishtest's LLRcalc gives for them
# (LLR_logistic and LLR_normalized, computed with its own code outside this project).
FISHTEST_LLR = [
    ([10, 40, 100, 60, 20], 0, 10, 2.0165049094741194, 1.4729897224115482),
    ([0, 10, 0], 0, 10, -0.28602310882444654, -0.006434112250674518),
    ([1, 90, 5], 0, 10, 1.3150046678127736, 0.4253592319156089),
    ([0, 0, 10, 0, 0], 0, 10, -0.28579586201903545, -0.013652902310696885),
    ([0, 0, 10, 0, 0], 0, 40, -1.2101466150767772, -0.2559834295420173),
    ([10789, 19328, 33806, 19402, 10543], -3, 1, 2.1310678117940807, 0.30086978548354076),
    ([1187, 7410, 13475, 7378, 1164], -3, 1, 2.86152718059463, 0.6002660734848049),
    ([40, 0, 60], 0, 20, 0.9857079090670332, 0.9852513653487641),
    ([12, 30, 25], -10, 10, 1.354406496419723, 1.0069353458730648),
    ([3, 12, 30, 14, 5], 0, 50, -0.9755093862376363, -0.036903381683591974),
    ([1, 5, 30, 6, 0], 0, 40, -3.6327241884174, -0.8188464491236438),
    ([0, 0, 0, 0, 1], 0, 10, 0.028423811539487056, 0.039882924976237),
    ([39, 2226, 31451, 2412, 40], 0.2, 0.9, 2.1625425800483593, 1.216596745293254),
]


@pytest.mark.parametrize(("results", "elo0", "elo1", "logistic", "normalized"), FISHTEST_LLR)
def test_llr_matches_fishtest_exactly(
    results: list[int], elo0: float, elo1: float, logistic: float, normalized: float
) -> None:
    assert llr(results, elo0, elo1) == pytest.approx(logistic, abs=1e-6)
    assert llr(results, elo0, elo1, EloModel.NORMALIZED) == pytest.approx(normalized, abs=1e-6)


def test_llr_basics() -> None:
    assert llr([0, 0, 0, 0, 0]) == 0.0 and llr([0, 0, 0]) == 0.0
    penta = [10, 40, 100, 60, 20]
    # Mirror image: a worse version gives a negative LLR; swapping the hypotheses flips the sign.
    assert llr(penta[::-1], 0, 10) < 0 < llr(penta, 0, 10)
    assert llr(penta, 10, 20) == pytest.approx(-llr(penta, 20, 10))
    with pytest.raises(ValueError):
        llr([1, 2, 3, 4])
    with pytest.raises(ValueError):
        llr([1, 2, 3], model="bayeselo")


def test_split_pairs_are_weak_evidence() -> None:
    # Ten pairs that each split 1-1 (the seat decided both games): the normal approximation
    # gave -262.9 and an immediate H0; the exact LLR is mild, the test goes on.
    assert llr([0, 0, 10, 0, 0], 0, 40) == pytest.approx(-1.2101466, abs=1e-6)
    status = Sprt(elo0=0, elo1=40).status([(1, 0), (0, 1)] * 5)
    assert status.decision is Decision.CONTINUE


def test_all_wins_tell_little_between_close_hypotheses() -> None:
    # Ten pairs won 2-0: both hypotheses fit them badly, H1 only a little better. The ratio of
    # the best laws is (s1 / s0) per pair, so a decision at [0, 10] takes about a hundred such
    # pairs, at the version-test defaults [0, 40] 27, at [0, 200] the first ten (overshoot included).
    for elo1, pairs in ((10, 104), (40, 27), (200, 10)):
        per_pair = math.log(expected_score(elo1) / 0.5)
        assert llr([0, 0, 0, 0, 10], 0, elo1) == pytest.approx(10 * per_pair, rel=0.01)
        status = Sprt(elo0=0, elo1=elo1).status([(1.0, 1.0)] * 200)
        assert status.decision is Decision.H1 and status.counts.pairs == pairs


def test_version_test_defaults() -> None:
    # The service's defaults are settings (the registry holds them; docs/ratings.md cites their figures).
    default = {name: SETTINGS[f"ARBITER_VERSION_TEST_{name}"].default for name in ("ELO0", "ELO1", "DEFAULT_MAX_GAMES")}
    test = Sprt(elo0=default["ELO0"], elo1=default["ELO1"], max_games=default["DEFAULT_MAX_GAMES"])
    assert (test.elo0, test.elo1, test.max_pairs) == (0.0, 40.0, 1000)
    assert default["DEFAULT_MAX_GAMES"] <= SETTINGS["ARBITER_VERSION_TEST_MAX_GAMES"].default
    # Sprt's own defaults are a plain test's: [0, 10].
    assert (Sprt().elo0, Sprt().elo1) == (0.0, 10.0)


def test_bounds_are_walds() -> None:
    lower, upper = bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944439)
    assert upper == pytest.approx(math.log(0.95 / 0.05))
    with pytest.raises(ValueError):
        bounds(0.0, 0.05)


def test_counts_from_pairs() -> None:
    data = counts([(1, 1), (1, 0.5), (0.5, 0.5), (0, 1), (0, 0.5), (0, 0)])
    assert (data.wins, data.draws, data.losses) == (4, 4, 4)
    assert data.pentanomial == (1, 1, 2, 1, 1) and data.trinomial == (4, 4, 4)
    assert data.pairs == 6 and data.games == 12
    with pytest.raises(ValueError):
        counts([(1, 0.25)])


def test_overshoot_follows_the_ladder_steps() -> None:
    state = Overshoot()
    for samples, value in enumerate([-0.5, -0.2, -1.0, 0.3, 0.8, 0.5], start=1):
        state = state.update(value, samples)
    # New lows at -0.5 and -1.0 (steps -0.5, -0.5); new highs at 0.3 and 0.8 (steps 0.3, 0.5).
    assert state.lower_shift == pytest.approx(0.5 / 1.0 / 2)
    assert state.upper_shift == pytest.approx((0.09 + 0.25) / 0.8 / 2)
    assert state.update(9.0, 6) is state  # the same look again changes nothing
    assert Overshoot.from_json(state.to_json()) == state
    fresh = state.update(0.1, 3)  # fewer samples than before: start afresh
    assert fresh.lower_shift == fresh.upper_shift == 0.0 and fresh.samples == 3
    assert Overshoot().lower_shift == Overshoot().upper_shift == 0.0


def test_status_moves_the_bounds_by_the_overshoot() -> None:
    test = Sprt(elo0=0, elo1=40, max_games=None)
    path = Overshoot().update(-0.8, 5).update(1.2, 10)
    data = Counts(wins=20, draws=10, losses=10, pentanomial=(2, 3, 5, 6, 4))
    plain, corrected = test.status_from_counts(data), test.status_from_counts(data, path)
    assert plain.lower == plain.wald_lower == pytest.approx(-2.944439, abs=1e-6)
    assert corrected.wald_upper == plain.upper
    assert corrected.lower == pytest.approx(plain.lower + 0.4) and corrected.upper == pytest.approx(plain.upper - 0.6)
    assert corrected.overshoot.samples == 20 and corrected.llr == plain.llr == test.llr(data)
    payload = corrected.to_json()
    assert payload["pentanomial"] == [2, 3, 5, 6, 4] and payload["wald_lower"] == plain.lower


def test_decisions_min_pairs_and_cap() -> None:
    assert decide(3.0, -2.9, 2.9, pairs=50) is Decision.H1
    assert decide(-3.0, -2.9, 2.9, pairs=50) is Decision.H0
    assert decide(0.0, -2.9, 2.9, pairs=50) is Decision.CONTINUE
    assert decide(9.0, -2.9, 2.9, pairs=3) is Decision.CONTINUE  # too few pairs to trust
    assert decide(0.0, -2.9, 2.9, pairs=100, max_pairs=100) is Decision.INCONCLUSIVE
    assert Sprt().status([(0.5, 0.5)] * 5).decision is Decision.CONTINUE
    test = Sprt(elo0=0, elo1=10, max_games=40)
    status = test.status([(1, 1), (0, 0), (1, 0), (0.5, 0.5)] * 5)
    assert status.decision is Decision.INCONCLUSIVE
    assert status.to_json()["pentanomial"] == [5, 0, 10, 0, 5]
    with pytest.raises(ValueError):
        Sprt(elo0=5, elo1=5)
    with pytest.raises(ValueError):
        Sprt(model="bayeselo")  # type: ignore[arg-type]


def test_status_stops_at_the_first_decision() -> None:
    test = Sprt(elo0=0, elo1=40, max_games=None)
    pairs = [(1.0, 1.0), (1.0, 0.5), (0.5, 1.0)] * 40
    status = test.status(pairs)
    assert status.decision is Decision.H1
    stopped_at = status.counts.pairs
    assert 10 <= stopped_at < len(pairs)
    # The look before the stop was still between the bounds in force then.
    before = test.status(pairs[: stopped_at - 1])
    assert before.decision is Decision.CONTINUE and before.lower < before.llr < before.upper


def test_unpaired_games_use_the_trinomial() -> None:
    test = Sprt(elo0=0, elo1=40, max_games=100, paired=False)
    data = counts([(1, 0), (1, 1), (0.5, 0)] * 4)
    assert test.results(data) == data.trinomial == (8, 4, 12)
    assert test.llr(data) == pytest.approx(llr([8, 4, 12], 0, 40))
    assert test.max_pairs == 100 and Sprt(max_games=100).max_pairs == 50
