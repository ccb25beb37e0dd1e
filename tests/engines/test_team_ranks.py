"""Ranks count teams: the engines' helper and the conversion of ranks stored when they counted seats."""

from __future__ import annotations

import pytest

from engines import renumber_ranks_by_team, team_ranks


def test_team_ranks_count_teams_not_seats() -> None:
    assert team_ranks([0, 1, 0, 1], [1, 0]) == (1, 2, 1, 2)
    assert team_ranks([0, 1, 2, 0, 1, 2], [0, 1, 0]) == (2, 1, 2, 2, 1, 2)
    assert team_ranks([0, 1, 2, 0, 1, 2], [2, 1, 0]) == (1, 2, 3, 1, 2, 3)
    assert team_ranks([0, 1], [3, 3]) == (1, 1)
    # One seat a team: the same as ranking the seats.
    assert team_ranks([0, 1, 2], [5, 9, 5]) == (2, 1, 2)


def test_old_seat_counted_ranks_become_team_ranks() -> None:
    # Two teams of two seats: stored as [1, 3, 1, 3] while ranks counted seats.
    assert renumber_ranks_by_team([1, 3, 1, 3], [0, 1, 0, 1]) == [1, 2, 1, 2]
    assert renumber_ranks_by_team([3, 1, 3, 1], [0, 1, 0, 1]) == [2, 1, 2, 1]
    # Three teams of two seats, team 1 last alone, or the two others tied behind the winner.
    assert renumber_ranks_by_team([1, 5, 1, 1, 5, 1], [0, 1, 2, 0, 1, 2]) == [1, 3, 1, 1, 3, 1]
    assert renumber_ranks_by_team([3, 1, 3, 3, 1, 3], [0, 1, 2, 0, 1, 2]) == [2, 1, 2, 2, 1, 2]
    assert renumber_ranks_by_team([1, 3, 5, 1, 3, 5], [0, 1, 2, 0, 1, 2]) == [1, 2, 3, 1, 2, 3]
    # A draw and one-seat teams are already right.
    assert renumber_ranks_by_team([1, 1, 1, 1], [0, 1, 0, 1]) == [1, 1, 1, 1]
    assert renumber_ranks_by_team([2, 1, 3], [0, 1, 2]) == [2, 1, 3]


@pytest.mark.parametrize(
    ("ranks", "team_of"),
    [([1, 3, 1, 3], [0, 1, 0, 1]), ([1, 5, 1, 1, 5, 1], [0, 1, 2, 0, 1, 2]), ([2, 2, 1], [0, 1, 2]), ([1, 2], [0, 1])],
)
def test_conversion_is_idempotent(ranks: list[int], team_of: list[int]) -> None:
    once = renumber_ranks_by_team(ranks, team_of)
    assert renumber_ranks_by_team(once, team_of) == once


def test_missing_and_inconsistent_ranks() -> None:
    # A seat without a rank keeps None and does not count; a team's seats that disagree take the best.
    assert renumber_ranks_by_team([None, None], [0, 1]) == [None, None]
    assert renumber_ranks_by_team([1, None, 1, 3], [0, 1, 0, 1]) == [1, None, 1, 2]
    assert renumber_ranks_by_team([1, 4, 2, 3], [0, 1, 0, 1]) == [1, 2, 1, 2]
    with pytest.raises(ValueError):
        renumber_ranks_by_team([1, 2], [0])
