"""Whole-history Bradley-Terry fit: recovery of known strengths, interval coverage, degenerate data."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from tests.stats.simulate import centred, multi_team_games, round_robin_pairs
from tournaments.ratings.stats import Game, fit


def _field(rng: random.Random, players: int, spread: float) -> dict[str, float]:
    return {f"p{k}": rng.gauss(0.0, spread) for k in range(players)}


def test_recovers_known_strengths_and_first_seat_edge() -> None:
    rng = random.Random(20261122)
    truth = _field(rng, 12, 200.0)
    games = round_robin_pairs(rng, truth, 3000, first_edge=35.0, draw_share=0.4)
    result = fit(games, anchor=1600.0)
    expected = centred(truth, 1600.0)
    got = {row.player: row.rating for row in result.table}
    names = sorted(truth)
    assert statistics.correlation([got[n] for n in names], [expected[n] for n in names]) > 0.98
    # About 500 games each: standard errors near 15 Elo, so 25 is a loose bound on the mean error.
    assert statistics.fmean(abs(got[n] - expected[n]) for n in names) < 25.0
    assert math.isclose(statistics.fmean(got.values()), 1600.0, abs_tol=1e-6)
    assert result.first_move_advantage is not None and result.first_move_stderr is not None
    assert abs(result.first_move_advantage - 35.0) < 3 * result.first_move_stderr
    assert result.first_move_stderr < 15.0
    # The table is sorted by rating and every row but the last has an LOS.
    ratings = [row.rating for row in result.table]
    assert ratings == sorted(ratings, reverse=True)
    assert all(0.5 <= row.los_next <= 1.0 for row in result.table[:-1])
    assert result.table[-1].los_next is None


def test_no_first_seat_term_without_a_first_mover() -> None:
    rng = random.Random(5)
    games = round_robin_pairs(rng, {"a": 0.0, "b": 0.0}, 200, first_edge=200.0)
    with_term = fit(games, first_mover=True)
    without = fit(games, first_mover=False)
    assert with_term.first_move_advantage is not None and with_term.first_move_advantage > 100.0
    assert without.first_move_advantage is None and without.first_move_stderr is None


def _coverage(trials: int, seed: int, draw_share: float, players: int = 20, games: int = 2000) -> tuple[float, float]:
    """(share of 95% intervals holding the true rating, share of drawn games) over seeded tournaments."""
    rng = random.Random(seed)
    hits = total = draws = played = 0
    for _ in range(trials):
        truth = _field(rng, players, 150.0)
        results = round_robin_pairs(rng, truth, games, first_edge=30.0, draw_share=draw_share)
        draws += sum(score == 0.5 for _, _, score in results)
        played += len(results)
        result = fit(results, anchor=1500.0)
        expected = centred(truth, 1500.0)
        for row in result.table:
            hits += row.ci_low <= expected[row.player] <= row.ci_high
            total += 1
    return hits / total, draws / played


# Draw shares giving about 0%, 20% and 40% drawn games in these fields.
DRAW_LEVELS = [(0.0, 0.0), (0.345, 0.2), (0.69, 0.4)]


@pytest.mark.parametrize(("draw_share", "drawn"), DRAW_LEVELS)
def test_intervals_cover_the_truth_with_and_without_draws(draw_share: float, drawn: float) -> None:
    # 100 tournaments of 20 players and 2,000 games: 2,000 intervals per draw level.
    coverage, observed = _coverage(100, seed=2026, draw_share=draw_share)
    assert abs(observed - drawn) < 0.02
    assert 0.94 <= coverage <= 0.96


@pytest.mark.slow
@pytest.mark.parametrize(("draw_share", "drawn"), DRAW_LEVELS)
def test_intervals_cover_the_truth_long(draw_share: float, drawn: float) -> None:
    # 5,000 intervals per level: the window is about two standard errors either side of 95%.
    coverage, _ = _coverage(250, seed=2027, draw_share=draw_share)
    assert 0.944 <= coverage <= 0.956


def test_draws_narrow_the_intervals() -> None:
    # 60-0-40, then the same with 100 draws added: a drawn game scores 1/2 for sure, so it is
    # precise evidence, and the error must shrink by more than the extra games alone explain.
    decisive = [("a", "b", 1.0)] * 60 + [("a", "b", 0.0)] * 40
    plain = fit(decisive, first_mover=False)
    padded = fit(decisive + [("a", "b", 0.5)] * 100, first_mover=False)
    assert padded.difference_stderr("a", "b") < 0.6 * plain.difference_stderr("a", "b")
    # Two hundred decisive games split 60-40 pin the gap down less well than 60-100-40.
    doubled = fit(decisive * 2, first_mover=False)
    assert padded.difference_stderr("a", "b") < 0.8 * doubled.difference_stderr("a", "b")
    # Only draws: the sandwich's middle is tiny there, but the prior keeps the error positive.
    level = fit([("a", "b", 0.5)] * 50, first_mover=False)
    assert 0.0 < level.difference_stderr("a", "b") < plain.difference_stderr("a", "b")


def _trinomial_los(wins: int, draws: int, losses: int) -> float:
    """The standard LOS from a W/D/L record: Phi((W - L) / sqrt(W + L))."""
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


@pytest.mark.parametrize(
    ("wins", "draws", "losses"),
    [(5, 90, 1), (60, 0, 40), (20, 80, 0), (30, 40, 20), (12, 3, 8), (50, 100, 45), (100, 300, 80)],
)
def test_single_pair_los_matches_the_trinomial_formula(wins: int, draws: int, losses: int) -> None:
    games = [("a", "b", 1.0)] * wins + [("a", "b", 0.5)] * draws + [("a", "b", 0.0)] * losses
    result = fit(games, first_mover=False)
    assert result.los("a", "b") == pytest.approx(_trinomial_los(wins, draws, losses), abs=0.01)


def _multi_team_coverage(trials: int, seed: int) -> tuple[float, float]:
    rng = random.Random(seed)
    hits = total = 0
    correlations = []
    for _ in range(trials):
        truth = _field(rng, 9, 150.0)
        result = fit(multi_team_games(rng, truth, 300, sides=3), anchor=1500.0, first_mover=False)
        expected = centred(truth, 1500.0)
        names = sorted(truth)
        correlations.append(
            statistics.correlation([result.player(n).rating for n in names], [expected[n] for n in names])
        )
        for row in result.table:
            hits += row.ci_low <= expected[row.player] <= row.ci_high
            total += 1
    return hits / total, statistics.fmean(correlations)


def test_three_team_rankings_recover_order() -> None:
    rng = random.Random(11)
    truth = {"a": 300.0, "b": 150.0, "c": 0.0, "d": -150.0, "e": -300.0}
    result = fit(multi_team_games(rng, truth, 1500, sides=3), first_mover=False)
    assert [row.player for row in result.table] == ["a", "b", "c", "d", "e"]
    assert all(row.los_next > 0.95 for row in result.table[:-1])
    coverage, correlation = _multi_team_coverage(15, seed=12)
    assert correlation > 0.9
    assert 0.85 <= coverage <= 1.0


@pytest.mark.slow
def test_three_team_intervals_cover_the_truth() -> None:
    coverage, _ = _multi_team_coverage(150, seed=13)
    assert 0.9 <= coverage <= 0.99


def test_perfect_score_zero_games_and_disconnected_groups_stay_finite() -> None:
    games = [("ace", "b", 1.0), ("b", "ace", 0.0)] * 5 + [("b", "c", 0.5), ("c", "b", 1.0)] * 20
    # A second group that never met the first.
    games += [("x", "y", 1.0), ("y", "x", 0.5)] * 3
    result = fit(games, players=["ace", "b", "c", "x", "y", "idle"], anchor=1500.0)
    rows = {row.player: row for row in result.table}
    assert all(math.isfinite(row.rating) and math.isfinite(row.stderr) for row in result.table)
    assert result.table[0].player == "ace"
    assert rows["ace"].stderr > rows["b"].stderr  # all wins: the size of the edge is poorly known
    assert rows["idle"].games == 0
    assert 300.0 < rows["idle"].stderr < 400.0  # the prior alone: about 2 natural units
    assert result.components == 2
    assert rows["ace"].component == rows["b"].component != rows["x"].component
    # Across the groups only the prior links ratings: their difference is much less certain.
    assert result.difference_stderr("b", "x") > 2 * result.difference_stderr("b", "c")
    assert math.isclose(statistics.fmean(r.rating for r in result.table), 1500.0, abs_tol=1e-6)


def test_los_uses_the_covariance_and_is_symmetric() -> None:
    rng = random.Random(21)
    truth = {"a": 20.0, "b": 0.0, "c": -200.0}
    result = fit(round_robin_pairs(rng, truth, 600))
    assert math.isclose(result.los("a", "b") + result.los("b", "a"), 1.0)
    assert result.los("a", "a") == 0.5
    assert result.player("a").los_next == pytest.approx(result.los("a", "b"))
    # Two players: centred ratings are exact opposites (correlation -1), so
    # the difference's error is twice each one's, not sqrt(2) times.
    pair = fit(round_robin_pairs(rng, {"x": 0.0, "y": 50.0}, 300))
    x, y = pair.player("x"), pair.player("y")
    assert x.stderr == pytest.approx(y.stderr)
    assert pair.difference_stderr("x", "y") == pytest.approx(2 * x.stderr)
    gap = y.rating - x.rating
    assert pair.los("y", "x") == pytest.approx(0.5 * (1 + math.erf(gap / (2 * x.stderr) / math.sqrt(2))))


def test_inputs_order_and_empty() -> None:
    assert fit([]).table == []
    by_tuple = fit([("a", "b", 1.0), ("b", "a", 0.5)])
    by_game = fit([Game.pair("a", "b", 1.0), Game(("b", "a"), (1, 1))])
    assert [r.rating for r in by_tuple.table] == pytest.approx([r.rating for r in by_game.table])
    ordered = fit([("a", "b", 1.0)], order=["b", "a"])
    assert [r.player for r in ordered.table] == ["b", "a"]
    assert ordered.table[0].los_next is not None and ordered.table[0].los_next < 0.5
    with pytest.raises(ValueError):
        fit([("a", "b", 1.0)], order=["a"])
    with pytest.raises(ValueError):
        Game.pair("a", "b", 0.3)
    payload = by_tuple.to_json()
    assert [p["player"] for p in payload["players"]] == [r.player for r in by_tuple.table]


def test_multi_team_games_split_into_weighted_pairs() -> None:
    from tournaments.ratings.stats.bradley_terry import aggregate

    index = {"a": 0, "b": 1, "c": 2}
    # a (first seat) and c share first place, b is last: three pairs of weight 3/4.
    rows, games, points = aggregate([Game(("a", "b", "c"), (1, 3, 1))], index, first_mover=True)
    assert sorted(rows) == [(0, 1, 1, 0.75, 0.75, 0.0), (0, 2, 1, 0.75, 0.375, 0.75), (1, 2, 0, 0.75, 0.0, 0.0)]
    assert games == [1, 1, 1] and points == [0.5, 0.0, 0.5]
    # Without a first mover there is no seat term at all.
    rows, _, _ = aggregate([Game(("a", "b", "c"), (1, 3, 1))], index, first_mover=False)
    assert all(row[2] == 0 for row in rows)


def test_los_matrix_and_error_bars() -> None:
    rng = random.Random(31)
    truth = {"a": 120.0, "b": 60.0, "c": 0.0, "d": -180.0}
    result = fit(round_robin_pairs(rng, truth, 800, first_edge=20.0, draw_share=0.3), anchor=1500.0)
    matrix = result.los_matrix()
    names = [row.player for row in result.table]
    assert matrix.players == names == ["a", "b", "c", "d"]
    for r, a in enumerate(names):
        assert matrix.values[r][r] is None
        for c, b in enumerate(names):
            if r != c:
                assert matrix.values[r][c] == pytest.approx(result.los(a, b))
                assert matrix.values[r][c] + matrix.values[c][r] == pytest.approx(1.0)
    # Rows below each other in the table: the matrix's superdiagonal is los_next.
    assert [matrix.values[k][k + 1] for k in range(3)] == pytest.approx([row.los_next for row in result.table[:3]])
    assert matrix.values[0][3] > 0.99
    chosen = result.los_matrix(["d", "a"])
    assert chosen.players == ["d", "a"] and chosen.values[0][1] == pytest.approx(result.los("d", "a"))
    payload = result.to_json(los_matrix=True)["los_matrix"]
    assert payload["players"] == names and payload["los"][0][1] == round(matrix.values[0][1], 4)
    assert "los_matrix" not in result.to_json()
    # Error bars: any rating (live Elo) with the fit's 95% half-width for that player.
    bars = result.error_bars({"a": 1610.0, "d": 1400.0, "stranger": 1500.0})
    assert set(bars) == {"a", "d"}
    a = result.player("a")
    assert bars["a"].elo == 1610.0 and bars["a"].stderr == a.stderr and bars["a"].games == a.games
    assert bars["a"].high - bars["a"].elo == pytest.approx(a.ci_high - a.rating)
    assert bars["a"].elo - bars["a"].low == pytest.approx(a.rating - a.ci_low)
    assert bars["d"].to_json()["low"] == bars["d"].low
    wide = result.error_bars({"a": 1610.0}, level=0.99)["a"]
    assert wide.high - wide.low > bars["a"].high - bars["a"].low
