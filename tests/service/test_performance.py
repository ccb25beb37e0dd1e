"""Bradley-Terry performance ratings: anchoring, ordering, intervals, first-move advantage, LOS."""

from __future__ import annotations

import math

from tournaments.performance import PairGame, bradley_terry, likelihood_of_superiority


def test_stronger_player_rates_higher_and_mean_is_anchored() -> None:
    # a scores 3 of 4 against b, seats alternating.
    games = [PairGame("a", "b", 1, 1), PairGame("b", "a", 0, 1), PairGame("a", "b", 1, 1), PairGame("b", "a", 1, 1)]
    fitted, _ = bradley_terry(players=["a", "b"], games=games, anchor_mean=1600)
    assert math.isclose((fitted["a"].rating + fitted["b"].rating) / 2, 1600)
    assert fitted["a"].rating > fitted["b"].rating
    for p in fitted.values():
        assert math.isclose(p.high - p.rating, p.rating - p.low)
        assert p.low < p.rating < p.high
    assert 0.5 < likelihood_of_superiority(fitted["a"], fitted["b"]) < 1


def test_first_mover_edge_is_not_credited_to_either_player() -> None:
    # Whoever moves first wins, every time, with seats alternating.
    games = [PairGame("a", "b", 1, 1), PairGame("a", "b", 0, -1)] * 5
    fitted, advantage = bradley_terry(players=["a", "b"], games=games, anchor_mean=1500)
    assert math.isclose(fitted["a"].rating, fitted["b"].rating, abs_tol=1e-6)
    assert advantage > 200
    fitted, advantage = bradley_terry(players=["a", "b"], games=games, anchor_mean=1500, first_mover=False)
    assert advantage == 0 and math.isclose(fitted["a"].rating, 1500, abs_tol=1e-6)


def test_perfect_scores_stay_finite_and_more_games_narrow_the_interval() -> None:
    few, _ = bradley_terry(players=["a", "b"], games=[PairGame("a", "b", 1)] * 2, anchor_mean=1500)
    many, _ = bradley_terry(
        players=["a", "b"], games=[PairGame("a", "b", 1), PairGame("a", "b", 0.5)] * 40, anchor_mean=1500
    )
    assert math.isfinite(few["a"].rating) and few["a"].rating > 1500
    assert many["a"].stderr < few["a"].stderr


def test_draws_only_means_equal() -> None:
    fitted, _ = bradley_terry(
        players=["a", "b", "c"],
        games=[PairGame("a", "b", 0.5), PairGame("b", "c", 0.5), PairGame("a", "c", 0.5)],
        anchor_mean=1500,
    )
    assert all(math.isclose(p.rating, 1500, abs_tol=1e-6) for p in fitted.values())
