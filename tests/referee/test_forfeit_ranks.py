"""A forfeit numbers ranks like every other result: over teams."""

from __future__ import annotations

import pytest

from engines import get_engine, team_ranks
from tests.engines.test_sequence import position
from workers.referee.play import forfeit_ranks


def test_a_forfeit_in_a_team_game_ranks_1_2_1_2() -> None:
    teams = get_engine("sequence").teams(4, {"teams": 2})
    assert teams == [[0, 2], [1, 3]]
    assert forfeit_ranks(teams, 4, {3}) == [1, 2, 1, 2]
    assert forfeit_ranks(teams, 4, {0}) == [2, 1, 2, 1]
    # The same numbering as the game's own result when team 0 wins.
    first = ["a5", "b5", "c5", "d5", "e5"]
    state = position(
        seats=4,
        chips=dict.fromkeys([*first, "b1", "c1", "d1"], 0),
        sequences=((0, first),),
        hands={2: ["TD"]},
        to_move=2,
    )
    state.apply("TD@e1")
    assert list(state.result().ranks) == forfeit_ranks(teams, 4, {1}) == [1, 2, 1, 2]


@pytest.mark.parametrize(
    ("teams", "failed", "expected"),
    [
        ([[0], [1]], {0}, [2, 1]),
        ([[0], [1]], {0, 1}, [1, 1]),
        ([[0], [1], [2]], {1}, [1, 3, 1]),
        ([[0], [1], [2]], {1, 2}, [1, 2, 2]),
        ([[0, 3], [1, 4], [2, 5]], {4}, [1, 3, 1, 1, 3, 1]),
        ([[0, 3], [1, 4], [2, 5]], {0, 5}, [2, 1, 2, 2, 1, 2]),
        ([[0, 2], [1, 3]], {0, 1}, [1, 1, 1, 1]),
    ],
)
def test_forfeit_ranks_count_teams(teams: list[list[int]], failed: set[int], expected: list[int]) -> None:
    seats = sum(len(t) for t in teams)
    assert forfeit_ranks(teams, seats, failed) == expected
    team_of = [next(k for k, t in enumerate(teams) if s in t) for s in range(seats)]
    clean = [0 if any(s in failed for s in t) else 1 for t in teams]
    assert tuple(expected) == team_ranks(team_of, clean)


def test_every_seat_needs_a_team() -> None:
    with pytest.raises(ValueError):
        forfeit_ranks([[0], [1]], 3, {0})
