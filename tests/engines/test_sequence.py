"""Rules of the ``sequence`` engine, each checked from a constructed position.

Positions are built through the engine's own JSON format (``to_json`` /
``state_from_json``), so every test goes through the public interface.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from engines import IllegalMoveError, InvalidOptionsError, get_engine
from engines.games._sequence_board import CORNERS, FULL_DECK, LAYOUT, SQUARE_NAMES, deal_size
from engines.games.sequence import SequenceState, card_squares, square_index

ENGINE = get_engine("sequence")


def position(
    seats: int = 2,
    *,
    chips: dict[str, int] | None = None,
    sequences: tuple[tuple[int, list[str]], ...] = (),
    hands: dict[int, list[str]] | None = None,
    discards: dict[int, list[str]] | None = None,
    top: list[str] = (),  # type: ignore[assignment]
    rest: str = "pile",
    to_move: int = 0,
    ply: int = 0,
    exchanged: bool = False,
    rules: str | None = None,
    **options: Any,
) -> SequenceState:
    """A position with the given chips, marked sequences and hands.

    Cards not placed anywhere go to the draw pile (``rest="pile"``, with ``top``
    drawn first), to seat 1's discard pile (``"discards"``) or to seat 1's hand
    (``"hand"``), so the two decks stay whole.  ``rules`` picks a rules version
    (default: the engine's).
    """
    data = ENGINE.new_state_for_version(rules or ENGINE.version, options, seed=1, seats=seats).to_json()
    data["board"] = ["corner" if sq in CORNERS else None for sq in range(100)]
    for name, team in (chips or {}).items():
        data["board"][square_index(name)] = team
    data["sequences"] = [{"team": t, "squares": [square_index(n) for n in names]} for t, names in sequences]
    hand_lists = [list((hands or {}).get(s, [])) for s in range(seats)]
    discard_lists = [list((discards or {}).get(s, [])) for s in range(seats)]
    left = Counter(FULL_DECK) - Counter(c for pile in hand_lists + discard_lists for c in pile) - Counter(top)
    filler = sorted(left.elements())
    pile = filler + list(reversed(top))
    if rest == "discards":
        discard_lists[1] += filler
        pile = list(reversed(top))
    elif rest == "hand":
        hand_lists[1] += filler
        pile = list(reversed(top))
    data.update(
        hands=hand_lists,
        discards=discard_lists,
        pile=pile,
        to_move=to_move,
        ply=ply,
        exchanged=exchanged,
        last_move=None,
        result=None,
    )
    return ENGINE.state_from_json(json.loads(json.dumps(data)))


def row(rank: int, files: str) -> list[str]:
    return [f"{f}{rank}" for f in files]


# -- board and deal ---------------------------------------------------------------


def test_board_has_every_non_jack_card_twice_and_four_corners() -> None:
    counts = Counter(LAYOUT)
    assert counts.pop("XX") == 4
    assert sorted(SQUARE_NAMES[sq] for sq in CORNERS) == ["a1", "a10", "j1", "j10"]
    non_jacks = {c for c in FULL_DECK if c[0] != "J"}
    assert set(counts) == non_jacks
    assert all(n == 2 for n in counts.values())
    assert card_squares("TD") == ("e1", "h5")


@pytest.mark.parametrize(("seats", "size"), [(2, 7), (3, 6), (4, 6), (6, 5), (8, 4), (9, 4), (10, 3), (12, 3)])
def test_deal_sizes(seats: int, size: int) -> None:
    assert deal_size(seats) == size
    state = ENGINE.new_state(seed=3, seats=seats)
    assert [len(h) for h in state.hands] == [size] * seats
    assert len(state.pile) == 104 - size * seats
    assert Counter(state.pile + [c for h in state.hands for c in h]) == Counter(FULL_DECK)
    assert state.public_observation()["draw_pile"] == 104 - size * seats


def test_seed_decides_the_deal() -> None:
    a, b, c = (ENGINE.new_state(seed=s) for s in (1, 1, 2))
    assert a.to_json() == b.to_json()
    assert a.hands != c.hands


# -- teams and options ------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "options", "teams"),
    [
        (2, {}, [[0], [1]]),
        (3, {}, [[0], [1], [2]]),
        (4, {}, [[0, 2], [1, 3]]),
        (6, {}, [[0, 2, 4], [1, 3, 5]]),
        (6, {"teams": 3}, [[0, 3], [1, 4], [2, 5]]),
        (8, {}, [[0, 2, 4, 6], [1, 3, 5, 7]]),
        (9, {}, [[0, 3, 6], [1, 4, 7], [2, 5, 8]]),
        (10, {"teams": 2}, [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]]),
        (12, {"teams": 3}, [[0, 3, 6, 9], [1, 4, 7, 10], [2, 5, 8, 11]]),
    ],
)
def test_team_splits(seats: int, options: dict, teams: list[list[int]]) -> None:
    assert ENGINE.teams(seats, options) == teams
    state = ENGINE.new_state(options, seats=seats)
    assert state.options["teams"] == len(teams)
    assert state.public_observation()["seat_team"] == [s % len(teams) for s in range(seats)]


@pytest.mark.parametrize(
    ("seats", "options", "message"),
    [
        (2, {"teams": 3}, "plays alone"),
        (3, {"teams": 2}, "plays alone"),
        (4, {"teams": 3}, "equal teams"),
        (8, {"teams": 3}, "equal teams"),
        (9, {"teams": 2}, "equal teams"),
        (4, {"teams": 1}, "must be one of"),
        (4, {"advanced": 1}, "true or false"),
        (2, {"max_plies": 0}, "at least"),
    ],
)
def test_bad_option_combinations(seats: int, options: dict, message: str) -> None:
    with pytest.raises(InvalidOptionsError, match=message):
        ENGINE.validate_options(options, seats)


def test_rating_pools_per_seat_count_team_split_and_advanced() -> None:
    assert ENGINE.rating_pool({}, 2) == "sequence:seats=2,teams=2,advanced=false"
    assert ENGINE.rating_pool({"teams": 2}, 6) == ENGINE.rating_pool({}, 6)
    assert ENGINE.rating_pool({"teams": 3}, 6) == "sequence:seats=6,teams=3,advanced=false"
    assert ENGINE.rating_pool({"advanced": True}, 3) == "sequence:seats=3,teams=3,advanced=true"
    assert ENGINE.rating_pool({"max_plies": 50}, 2) == ENGINE.rating_pool({}, 2)


# -- playing cards ----------------------------------------------------------------


def test_notation_sorted_and_one_move_per_card_and_square() -> None:
    state = position(chips={"b6": 1, "c6": 0}, hands={0: ["7H", "7H", "JS", "2S"]})
    legal = state.legal_moves()
    assert legal == sorted(legal) and len(legal) == len(set(legal))
    assert [m for m in legal if m.startswith("7H")] == ["7H@d5", "7H@i6"]
    assert [m for m in legal if m.startswith("JS")] == ["JS-b6"]
    assert "2S@g2" in legal and "2S@b10" in legal


def test_card_goes_only_on_its_own_empty_squares() -> None:
    state = position(chips={"d5": 1}, hands={0: ["7H"], 1: ["2S"]})
    assert state.legal_moves() == ["7H@i6"]
    with pytest.raises(IllegalMoveError):
        state.apply("7H@d5")
    state.apply("7H@i6")
    assert state.public_observation()["chips"]["i6"] == 0
    assert state.discards[0] == ["7H"] and state.to_move() == 1 and len(state.hands[0]) == 1


def test_two_eyed_jack_on_any_empty_square_but_not_a_corner() -> None:
    state = position(chips={"e5": 1, "f5": 0}, hands={0: ["JD"]})
    legal = state.legal_moves()
    assert len(legal) == 96 - 2
    assert "JD@a1" not in legal and "JD@j10" not in legal and "JD@e5" not in legal
    for corner in ("a1", "j1", "a10", "j10"):
        with pytest.raises(IllegalMoveError):
            state.apply(f"JD@{corner}")
    state.apply("JD@a5")
    assert state.public_observation()["chips"]["a5"] == 0


def test_one_eyed_jack_removes_only_an_opposing_chip() -> None:
    state = position(chips={"e5": 1, "f5": 0}, hands={0: ["JH"]})
    assert state.legal_moves() == ["JH-e5"]
    state.apply("JH-e5")
    chips = state.public_observation()["chips"]
    assert "e5" not in chips and chips["f5"] == 0
    assert state.discards[0] == ["JH"]


def test_one_eyed_jack_refused_on_a_completed_sequence() -> None:
    seq = row(5, "abcde")
    chips = dict.fromkeys(seq, 1) | {"f5": 1}
    state = position(chips=chips, sequences=((1, seq),), hands={0: ["JS"]})
    assert state.legal_moves() == ["JS-f5"]
    with pytest.raises(IllegalMoveError):
        state.apply("JS-c5")


def test_advanced_one_eyed_jack_removes_a_sequence_chip_and_unmarks() -> None:
    seq = row(5, "abcde")
    second = row(5, "efghi")
    chips = dict.fromkeys(seq + second, 1)
    state = position(chips=chips, sequences=((1, seq), (1, second)), hands={0: ["JS"]}, seats=3, advanced=True)
    # The shared square e5 belongs to both sequences: removing it unmarks both.
    assert "JS-e5" in state.legal_moves() and "JS-a5" in state.legal_moves()
    state.apply("JS-e5")
    obs = state.public_observation()
    assert obs["sequences"] == [] and obs["sequence_counts"] == [0, 0, 0]
    assert "e5" not in obs["chips"] and obs["chips"]["a5"] == 1


def test_advanced_removal_unmarks_only_sequences_holding_the_chip() -> None:
    seq = row(5, "abcde")
    col = ["h1", "h2", "h3", "h4", "h5"]
    chips = dict.fromkeys(seq + col, 1)
    state = position(chips=chips, sequences=((1, seq), (1, col)), hands={0: ["JS"]}, advanced=True)
    state.apply("JS-b5")
    assert state.public_observation()["sequences"] == [{"team": 1, "squares": col}]
    assert state.locked[square_index("a5")] == 0 and state.locked[square_index("h3")] == 1


# -- sequences ----------------------------------------------------------------------


def test_five_in_a_row_marks_one_sequence_and_corners_count_for_everyone() -> None:
    for team in (0, 1):
        state = position(chips=dict.fromkeys(["b1", "c1", "d1"], team), hands={team: ["TD"]}, to_move=team)
        state.apply("TD@e1")
        assert state.public_observation()["sequences"] == [{"team": team, "squares": row(1, "abcde")}]
        assert not state.is_terminal()


def test_line_of_nine_marks_two_sequences_and_wins_for_two_teams() -> None:
    chips = dict.fromkeys(row(5, "abcdfghi"), 0)
    state = position(chips=chips, hands={0: ["2H"]})
    state.apply("2H@e5")
    obs = state.public_observation()
    assert [s["squares"] for s in obs["sequences"]] == [row(5, "abcde"), row(5, "efghi")]
    result = state.result()
    assert result is not None and result.ranks == (1, 2) and result.scores == (2, 0)
    assert result.reason == "two sequences completed" and state.to_move() is None


@pytest.mark.parametrize(("card", "square", "expected"), [("2H", "e5", "abcde efghi"), ("3H", "f5", "bcdef fghij")])
def test_line_of_ten_marks_two_sequences(card: str, square: str, expected: str) -> None:
    chips = dict.fromkeys(row(5, "abcdefghij"), 0)
    del chips[square]
    state = position(chips=chips, hands={0: [card]}, seats=3)
    state.apply(f"{card}@{square}")
    squares = [s["squares"] for s in state.public_observation()["sequences"]]
    assert squares == [row(5, files) for files in expected.split()]


def test_second_sequence_may_share_one_square_only() -> None:
    first = row(5, "abcde")
    # Extending by one chip would give b5-f5, sharing four squares: not a new sequence.
    state = position(chips=dict.fromkeys(first, 0), sequences=((0, first),), hands={0: ["3H"]})
    state.apply("3H@f5")
    assert state.sequence_counts() == [1, 0] and not state.is_terminal()
    # Four more chips give e5-i5, sharing only e5: the second sequence wins.
    chips = dict.fromkeys([*first, "f5", "g5", "h5"], 0)
    state = position(chips=chips, sequences=((0, first),), hands={0: ["6H"]})
    state.apply("6H@i5")
    assert [s["squares"] for s in state.public_observation()["sequences"]] == [first, row(5, "efghi")]
    assert state.result().ranks == (1, 2)


def test_marking_order_horizontal_before_vertical() -> None:
    chips = dict.fromkeys([*row(5, "abcd"), "e1", "e2", "e3", "e4"], 1)
    state = position(chips=chips, hands={1: ["2H"]}, to_move=1)
    state.apply("2H@e5")
    squares = [s["squares"] for s in state.public_observation()["sequences"]]
    assert squares == [row(5, "abcde"), ["e1", "e2", "e3", "e4", "e5"]]
    assert state.result().ranks == (2, 1) and state.result().scores == (0, 2)


def test_marking_order_rising_diagonal_before_falling_diagonal() -> None:
    chips = dict.fromkeys(["b2", "c3", "d4", "a9", "b8", "c7", "d6"], 0)
    state = position(chips=chips, hands={0: ["2H"]})
    state.apply("2H@e5")
    squares = [s["squares"] for s in state.public_observation()["sequences"]]
    assert squares == [["a1", "b2", "c3", "d4", "e5"], ["a9", "b8", "c7", "d6", "e5"]]


def test_removing_a_chip_never_marks_anything() -> None:
    # Team 0 holds a full line b5-f5 that was never marked; taking an opposing chip elsewhere marks nothing.
    chips = dict.fromkeys(row(5, "bcdef"), 0) | {"a9": 1}
    state = position(chips=chips, hands={0: ["JH"]}, seats=3)
    state.apply("JH-a9")
    assert state.public_observation()["sequences"] == []


def test_one_sequence_wins_for_three_teams() -> None:
    state = position(seats=3, chips=dict.fromkeys(["b1", "c1", "d1"], 2), hands={2: ["TD"]}, to_move=2)
    state.apply("TD@e1")
    result = state.result()
    assert result.ranks == (2, 2, 1) and result.scores == (0, 0, 1) and result.reason == "a sequence completed"


def test_team_chips_are_shared_by_teammates() -> None:
    # Seats 0 and 2 are team 0 in a four-player game.
    state = position(seats=4, chips=dict.fromkeys(["b1", "c1", "d1"], 0), hands={2: ["TD"]}, to_move=2)
    state.apply("TD@e1")
    assert state.sequence_counts() == [1, 0]


# -- dead cards, drawing, passing -------------------------------------------------


def test_dead_card_exchanged_once_per_turn() -> None:
    # Both 7H squares (d5, i6) and both 8H squares (d4, i7) are covered.
    chips = {"d5": 1, "i6": 0, "d4": 0, "i7": 1}
    state = position(chips=chips, hands={0: ["7H", "2S"], 1: ["3S"]}, top=["8H", "4S"])
    assert "dead:7H" in state.legal_moves()
    state.apply("dead:7H")
    assert state.to_move() == 0 and state.ply == 1 and state.exchanged
    assert sorted(state.hands[0]) == ["2S", "8H"] and state.discards[0] == ["7H"]
    # 8H is dead too, but one exchange a turn.
    assert not any(m.startswith("dead:") for m in state.legal_moves())
    with pytest.raises(IllegalMoveError):
        state.apply("dead:8H")
    state.apply("2S@g2")
    assert state.to_move() == 1 and not state.exchanged
    state.apply("3S@f2")
    assert "dead:8H" in state.legal_moves()


def test_pass_only_when_nothing_is_playable() -> None:
    chips = {"d5": 1, "i6": 0, "d4": 0, "i7": 1}
    state = position(chips=chips, hands={0: ["7H"]}, top=["8H"])
    state.apply("dead:7H")
    assert state.legal_moves() == ["pass"]
    before = len(state.pile)
    state.apply("pass")
    assert state.to_move() == 1 and state.ply == 2 and len(state.pile) == before
    # A one-eyed jack with no opposing chip to remove cannot be played either.
    state = position(chips={"e5": 0}, hands={0: ["JS"]})
    assert state.legal_moves() == ["pass"]


def test_discards_are_reshuffled_when_the_pile_runs_out() -> None:
    state = position(hands={0: ["2S"], 1: ["3S"]}, rest="discards")
    gathered = Counter(state.discards[1])
    assert state.pile == [] and len(gathered) > 0
    again = ENGINE.state_from_json(state.to_json())
    state.apply("2S@g2")
    drawn = [c for c in state.hands[0]]
    # The played card reaches its discard pile before the draw, so it is reshuffled too.
    gathered["2S"] += 1
    assert len(drawn) == 1 and gathered[drawn[0]] > 0
    assert Counter(state.pile) + Counter(drawn) == gathered
    assert state.discards == [[], []]
    # The shuffle comes from the stored random stream: a restored state draws the same.
    again.apply("2S@g2")
    assert again.to_json() == state.to_json()
    assert state.rng_state != again.engine.new_state(seed=1).rng_state


def test_last_card_played_on_an_empty_pile_comes_back() -> None:
    # No other discards: the reshuffle holds only the card just played, and its player draws it again.
    state = position(hands={0: ["2S", "3S"]}, rest="hand")
    assert state.pile == [] and state.discards == [[], []]
    state.apply("2S@g2")
    assert sorted(state.hands[0]) == ["2S", "3S"] and state.pile == [] and state.discards == [[], []]


def test_version_1_drew_before_discarding() -> None:
    # Rules version 1, kept for old replays: the card played missed the reshuffle.
    state = position(hands={0: ["2S"], 1: ["3S"]}, rest="discards", rules="1")
    gathered = Counter(state.discards[1])
    state.apply("2S@g2")
    assert Counter(state.pile) + Counter(state.hands[0]) == gathered
    assert state.discards == [["2S"], []] and state.to_json()["version"] == "1"
    state = position(hands={0: ["2S", "3S"]}, rest="hand", rules="1")
    state.apply("2S@g2")
    assert state.hands[0] == ["3S"] and state.pile == [] and state.discards == [["2S"], []]


def test_ply_cap_ranks_by_sequences() -> None:
    seq = row(5, "abcde")
    state = position(chips=dict.fromkeys(seq, 1), sequences=((1, seq),), hands={0: ["2S"]}, ply=9, max_plies=10)
    state.apply("2S@g2")
    result = state.result()
    assert result.ranks == (2, 1) and result.scores == (0, 1) and result.reason == "ply limit reached"
    state = position(hands={0: ["2S"]}, ply=9, max_plies=10)
    state.apply("2S@g2")
    assert state.result().ranks == (1, 1) and state.legal_moves() == []
    with pytest.raises(IllegalMoveError):
        state.apply("pass")


def test_random_game_stops_at_the_cap() -> None:
    state = ENGINE.new_state({"max_plies": 25}, seed=4, seats=4)
    rng = random.Random(4)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_moves()))
    assert state.ply <= 25
