"""Sequence rule versions (discard before the draw, reshuffles of their own, old replays); ranks over teams."""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from pathlib import Path

import pytest

from engines import InvalidStateError, Replay, get_engine
from tests.engines.test_sequence import position

ENGINE = get_engine("sequence")
FIXTURES = Path(__file__).parent / "fixtures"


def _moves(text: str) -> list[str]:
    return text.split()


# Seed 5, two players, max_plies 110: these 90 moves empty the draw pile (seat 0 to move),
# and the 91st, 7H@i6, is played with nothing left to draw.
RESHUFFLE_SEED = 5
RESHUFFLE_MOVES = _moves(
    """
    JD@h3 6S@c2 TS@j9 9S@i10 AC@f3 QH@g4 KS@b7 QH@h9 7C@a8 2C@e9 4H@i3 AH@g6 9D@h6 4C@e7 3S@c10
    6C@c7 8C@a7 KH@g5 3H@i2 JH-h6 9C@a6 5H@i4 8C@c5 6H@d6 2D@c8 7D@h1 5S@d2 AS@j6 4D@e8 QC@a4 4S@d10
    5D@f8 5D@j2 TD@e1 JC@b5 5S@e10 2S@b10 3C@d9 JS-c2 JS-j9 7S@b2 5C@b9 7C@c6 5H@e6 9D@f1 5C@d7
    KC@e3 6H@i5 6D@g8 4S@e2 KD@c1 9C@c4 2S@g2 AS@b8 JD@f5 3C@f7 JH-c7 6D@i1 7H@d5 8D@g1 KH@g9 2H@e5
    dead:3H TH@i9 8H@i7 4D@j3 6C@c7 QD@d1 7S@g10 QS@b6 9S@b4 8D@h7 QS@j8 AD@b1 3D@d8 3S@f2 6S@f10
    2C@g7 8S@b3 TC@c3 2D@j5 AC@a2 JC@j4 9H@e4 7D@h8 9H@i8 QD@h4 dead:KD 4C@c9 AD@g3 7H@i6
    """
)


def _digest(states: list) -> str:
    h = hashlib.sha256()
    for state in states:
        h.update(json.dumps(state.to_json(), sort_keys=True).encode())
    return h.hexdigest()


def _game(state: object) -> dict:
    """A state's JSON without its rules version."""
    return {k: v for k, v in state.to_json().items() if k != "version"}  # type: ignore[attr-defined]


def test_reshuffle_includes_the_card_just_played() -> None:
    state = ENGINE.new_state({"max_plies": 110}, seed=RESHUFFLE_SEED, seats=2)
    for move in RESHUFFLE_MOVES[:-1]:
        state.apply(move)
    assert state.pile == [] and state.to_move() == 0
    assert sorted(state.hands[0]) == ["7H", "8S", "AH", "KC", "KS", "QC", "TC"]
    discarded = Counter(card for pile in state.discards for card in pile)
    state.apply(RESHUFFLE_MOVES[-1])
    # Every discard, this 7H included, went into the new pile; seat 0 drew one card of it.
    (drawn,) = Counter(state.hands[0]) - Counter(["8S", "KS", "TC", "AH", "QC", "KC"])
    assert Counter(state.pile) + Counter([drawn]) == discarded + Counter(["7H"])
    assert drawn != "7H" and Counter(state.pile)["7H"] == discarded["7H"] + 1
    assert state.discards == [[], []]


def test_version_1_replays_move_for_move() -> None:
    recorded = json.loads((FIXTURES / "sequence_v1_reshuffle.json").read_text())
    assert recorded["engine_version"] == "1" and recorded["seed"] == RESHUFFLE_SEED
    assert recorded["moves"][: len(RESHUFFLE_MOVES)] == RESHUFFLE_MOVES
    replay = Replay.from_json(recorded)
    states = replay.states()
    # Recorded with the engine of version 1 itself: every state, hands and random stream included.
    assert _digest(states) == recorded["states_sha256"]
    final = replay.final_state()
    assert final.result().to_json() == recorded["result"]
    assert final.to_json()["version"] == "1"
    # Under version 1 the card played at the reshuffle stayed out of the new pile.
    before, after = states[len(RESHUFFLE_MOVES) - 1], states[len(RESHUFFLE_MOVES)]
    discarded = Counter(card for pile in before.discards for card in pile)
    assert after.discards == [["7H"], []] and Counter(after.pile)["7H"] == discarded["7H"]
    # The same moves under the current rules are another game from the reshuffle on.
    current = Replay.from_json({**recorded, "engine_version": ENGINE.version}).states()
    n = len(RESHUFFLE_MOVES)
    assert [_game(s) for s in current[:n]] == [_game(s) for s in states[:n]]
    assert _game(current[n]) != _game(after)


def test_version_2_replays_move_for_move() -> None:
    """Recorded by the engine of version 2 itself, whose reshuffles went on with the deal's random stream."""
    recorded = json.loads((FIXTURES / "sequence_v2_reshuffle.json").read_text())
    assert recorded["engine_version"] == "2" and recorded["moves"][: len(RESHUFFLE_MOVES)] == RESHUFFLE_MOVES
    replay = Replay.from_json(recorded)
    assert _digest(replay.states()) == recorded["states_sha256"]
    assert replay.final_state().result().to_json() == recorded["result"]


def test_each_reshuffle_has_a_random_stream_of_its_own() -> None:
    """Rules 3: a reshuffle does not go on with the deal's stream, so that stream, found or not, tells nothing of it.

    Under version 2 the new pile is what the deal's stream, continued, makes of the gathered discards; under
    version 3 it is not.  The deal itself is the same under both.
    """
    piles = {}
    for rules in ("2", "3"):
        state = ENGINE.new_state_for_version(rules, {"max_plies": 110}, seed=RESHUFFLE_SEED, seats=2)
        assert state.hands == ENGINE.new_state_for_version("2", {}, seed=RESHUFFLE_SEED, seats=2).hands
        for move in RESHUFFLE_MOVES[:-1]:
            state.apply(move)
        continued = random.Random()
        continued.setstate(state.rng_state)
        gathered = [*state.discards[0], "7H", *state.discards[1]]  # seat 0 plays 7H, then draws from nothing
        continued.shuffle(gathered)
        state.apply(RESHUFFLE_MOVES[-1])
        piles[rules] = (state.pile, gathered[:-1])
    assert piles["2"][0] == piles["2"][1]
    assert piles["3"][0] != piles["3"][1] and sorted(piles["3"][0]) != piles["3"][0]


def test_versions_known_and_unknown() -> None:
    assert ENGINE.version == "3" and ENGINE.legacy_versions == ("2", "1")
    assert ENGINE.new_state_for_version("1", seed=3).to_json()["version"] == "1"
    assert ENGINE.new_state_for_version("2", seed=3).to_json()["version"] == "2"
    assert ENGINE.new_state(seed=3).to_json()["version"] == "3"
    with pytest.raises(InvalidStateError):
        ENGINE.new_state_for_version("0", seed=3)
    with pytest.raises(InvalidStateError):
        ENGINE.state_from_json({**ENGINE.new_state(seed=3).to_json(), "version": "9"})
    # A state keeps its rules version through JSON and clones.
    old = ENGINE.new_state_for_version("1", seed=3)
    assert ENGINE.state_from_json(old.to_json()).rules == "1" and old.clone().rules == "1"
    # Other engines know only their current version.
    pileup = get_engine("pileup")
    assert pileup.new_state_for_version(pileup.version, seed=1).to_json() == pileup.new_state(seed=1).to_json()
    with pytest.raises(InvalidStateError):
        pileup.new_state_for_version("0", seed=1)


# -- ranks count teams ----------------------------------------------------------------


def test_two_teams_of_two_rank_1_2_1_2() -> None:
    # Team 0 (seats 0 and 2) holds one sequence; seat 2 completes the second. Both rule versions agree.
    first = ["a5", "b5", "c5", "d5", "e5"]
    for rules in ("3", "2", "1"):
        state = position(
            seats=4,
            chips=dict.fromkeys([*first, "b1", "c1", "d1"], 0),
            sequences=((0, first),),
            hands={2: ["TD"]},
            to_move=2,
            rules=rules,
        )
        state.apply("TD@e1")
        assert state.result().ranks == (1, 2, 1, 2) and state.result().scores == (2, 0, 2, 0)


def test_team_ranks_for_three_teams_and_at_the_ply_cap() -> None:
    # Six seats in three teams: team 1 (seats 1 and 4) completes its sequence; the other two share rank 2.
    state = position(seats=6, chips=dict.fromkeys(["b1", "c1", "d1"], 1), hands={1: ["TD"]}, to_move=1, teams=3)
    state.apply("TD@e1")
    assert state.result().ranks == (2, 1, 2, 2, 1, 2)
    # At the ply cap teams rank by sequences: team 1 has one, team 0 none.
    seq = ["a5", "b5", "c5", "d5", "e5"]
    state = position(
        seats=4, chips=dict.fromkeys(seq, 1), sequences=((1, seq),), hands={0: ["2S"]}, ply=9, max_plies=10
    )
    state.apply("2S@g2")
    assert state.result().ranks == (2, 1, 2, 1) and state.result().reason == "ply limit reached"
    # Equal counts share first place.
    state = position(seats=4, hands={0: ["2S"]}, ply=9, max_plies=10)
    state.apply("2S@g2")
    assert state.result().ranks == (1, 1, 1, 1)
