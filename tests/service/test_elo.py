"""Elo arithmetic against numbers worked out by hand from docs ratings.md."""

from __future__ import annotations

import math

import pytest

from tournaments.ratings.elo import EloSettings, elo_deltas, expected_score, outcome, pair_score

CONFIG = EloSettings()


def test_expected_score_by_hand() -> None:
    assert expected_score(1500, 1500) == 0.5
    # 400 points apart: 1 / (1 + 10) = 1/11.
    assert math.isclose(expected_score(1900, 1500), 10 / 11)
    assert math.isclose(expected_score(1500, 1900), 1 / 11)


def test_two_seats_k40_then_k20() -> None:
    deltas = elo_deltas(
        teams=[["a"], ["b"]], team_ranks=[1, 2], ratings={"a": 1500, "b": 1500}, games={"a": 0, "b": 0}, config=CONFIG
    )
    assert deltas == {"a": 20.0, "b": -20.0}  # 40 * (1 - 0.5)
    # a has played 30 games: K 20 for a, still 40 for b (29 games).
    deltas = elo_deltas(
        teams=[["a"], ["b"]], team_ranks=[1, 2], ratings={"a": 1500, "b": 1500}, games={"a": 30, "b": 29}, config=CONFIG
    )
    assert deltas == {"a": 10.0, "b": -20.0}


def test_two_seats_draw_and_upset() -> None:
    deltas = elo_deltas(
        teams=[["a"], ["b"]], team_ranks=[1, 1], ratings={"a": 1900, "b": 1500}, games={"a": 0, "b": 0}, config=CONFIG
    )
    assert math.isclose(deltas["a"], 40 * (0.5 - 10 / 11))
    assert math.isclose(deltas["b"], 40 * (0.5 - 1 / 11))


def test_three_teams_by_hand() -> None:
    # Ratings 1600, 1500, 1400; ranks 2, 1, 3; everyone new (K 40, T - 1 = 2).
    r = {"a": 1600.0, "b": 1500.0, "c": 1400.0}
    deltas = elo_deltas(
        teams=[["a"], ["b"], ["c"]], team_ranks=[2, 1, 3], ratings=r, games=dict.fromkeys(r, 0), config=CONFIG
    )

    def e(x: float, y: float) -> float:
        return 1 / (1 + 10 ** ((y - x) / 400))

    assert math.isclose(deltas["a"], 20 * ((0 - e(1600, 1500)) + (1 - e(1600, 1400))))
    assert math.isclose(deltas["b"], 20 * ((1 - e(1500, 1600)) + (1 - e(1500, 1400))))
    assert math.isclose(deltas["c"], 20 * ((0 - e(1400, 1600)) + (0 - e(1400, 1500))))


def test_teams_use_the_mean_and_each_members_own_k() -> None:
    # Team 0: a (1600, new) and b (1400, veteran): mean 1500; team 1: c alone at 1500. Team 0 wins.
    deltas = elo_deltas(
        teams=[["a", "b"], ["c"]],
        team_ranks=[1, 2],
        ratings={"a": 1600, "b": 1400, "c": 1500},
        games={"a": 0, "b": 100, "c": 0},
        config=CONFIG,
    )
    assert deltas == {"a": 20.0, "b": 10.0, "c": -20.0}


def test_a_member_on_two_teams_is_refused() -> None:
    with pytest.raises(ValueError):
        elo_deltas(teams=[["a"], ["a"]], team_ranks=[1, 2], ratings={"a": 1500}, games={"a": 0}, config=CONFIG)


def test_pair_score_and_outcome() -> None:
    assert [pair_score(1, 2), pair_score(2, 2), pair_score(3, 1)] == [1.0, 0.5, 0.0]
    assert outcome(1, [1, 2]) == "win"
    assert outcome(1, [1, 1, 3]) == "draw"
    assert outcome(3, [1, 1, 3]) == "loss"
