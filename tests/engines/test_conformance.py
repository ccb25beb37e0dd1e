"""The conformance suite: every registered engine, every example configuration.

Light playouts (many, fast) check legality, termination and results; heavy
playouts (fewer) check every invariant at every ply: each listed move applies,
unlisted ones raise and leave the state unchanged, JSON round trips, replay
determinism, observations are JSON-safe and hidden information never leaks.
"""

from __future__ import annotations

import json
import pathlib
import random

import pytest

from engines import (
    PASS,
    Engine,
    IllegalMoveError,
    InvalidOptionsError,
    Replay,
    State,
    all_engines,
    get_engine,
)
from engines.playout import random_playout

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIGHT_PLAYOUTS = 200
HEAVY_PLAYOUTS = 6

ENGINES = all_engines()
CASES = [
    pytest.param(engine.id, seats, options, id=f"{engine.id}-{seats}-{json.dumps(options, sort_keys=True)}")
    for engine in ENGINES
    for seats, options in engine.configs()
]


def test_registry_has_engines() -> None:
    assert ENGINES, "no engine registered"
    assert len({e.id for e in ENGINES}) == len(ENGINES)


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.id)
def test_metadata(engine: Engine) -> None:
    assert engine.id and engine.name and engine.version
    assert engine.seat_counts and all(n >= 2 for n in engine.seat_counts)
    assert "max_plies" in {o.name for o in engine.options}
    json.dumps(engine.describe())
    if engine.rules_doc:
        assert (ROOT / engine.rules_doc).is_file(), engine.rules_doc
    for seats, options in engine.configs():
        full = engine.validate_options(options, seats)
        teams = engine.teams(seats, full)
        assert sorted(s for team in teams for s in team) == list(range(seats))
        assert engine.rating_pool(options, seats).startswith(engine.id)
    with pytest.raises(InvalidOptionsError):
        engine.validate_options({"no_such_option": 1})
    with pytest.raises(InvalidOptionsError):
        engine.validate_options({"max_plies": "many"})
    with pytest.raises(InvalidOptionsError):
        engine.new_state(seats=max(engine.seat_counts) + 1)


def _check_invariants(state: State) -> list[str]:
    legal = state.legal_moves()
    if state.is_terminal():
        assert legal == []
        assert state.to_move() is None
        assert state.result() is not None
    else:
        assert legal, "a live state must offer a move"
        assert legal == sorted(legal) and len(set(legal)) == len(legal)
        if PASS in legal:
            assert legal == [PASS], "pass is offered only when nothing else is legal"
        assert state.to_move() in range(state.seats)
        assert state.result() is None
    return legal


def _check_result(state: State) -> None:
    result = state.result()
    assert result is not None and result.reason
    ranks = result.ranks
    assert len(ranks) == state.seats
    teams = state.engine.teams(state.seats, state.options)
    for team in teams:
        assert len({ranks[s] for s in team}) == 1, "every seat of a team shares the team's rank"
    # Ranks count teams: a team's rank is 1 + the number of teams strictly ahead.
    by_team = [ranks[team[0]] for team in teams]
    assert by_team == [1 + sum(1 for o in by_team if o < r) for r in by_team]
    if result.scores is not None:
        assert len(result.scores) == state.seats
    assert state.ply <= state.options["max_plies"]
    json.dumps(result.to_json())


@pytest.mark.parametrize(("engine_id", "seats", "options"), CASES)
def test_light_playouts(engine_id: str, seats: int, options: dict) -> None:
    engine = get_engine(engine_id)
    n = max(20, LIGHT_PLAYOUTS // len(engine.configs()))
    outcomes = set()
    for seed in range(n):
        state, moves = random_playout(engine, seed=seed, options=options, seats=seats)
        _check_result(state)
        outcomes.add(state.result().ranks)
        assert state.ply == len(moves)
    assert outcomes, "playouts produced no result"


def _bad_moves(state: State, legal: list[str], seen: list[str], rng: random.Random) -> list[str]:
    """Text that is not a legal move here: junk, mutations of legal moves, moves from other plies."""
    legal_set = set(legal)
    candidates = ["", " ", "junk", "pass ", PASS, "a1-a1", "\x00", "é@z99", "-", "@", "+", "x" * 200]
    for move in rng.sample(legal, min(5, len(legal))):
        candidates += [move + "x", move.upper(), " " + move, move[:-1], move + "1", move[::-1]]
    candidates += rng.sample(seen, min(10, len(seen)))
    return [c for c in candidates if c not in legal_set]


@pytest.mark.parametrize(("engine_id", "seats", "options"), CASES)
def test_heavy_playouts(engine_id: str, seats: int, options: dict) -> None:
    engine = get_engine(engine_id)
    for seed in range(1000, 1000 + HEAVY_PLAYOUTS):
        rng = random.Random(seed)
        state = engine.new_state(options, seed=seed, seats=seats)
        full_options = engine.validate_options(options, seats)
        assert state.options == full_options
        played: list[str] = []
        seen: list[str] = []
        snapshots = []
        while True:
            legal = _check_invariants(state)
            snapshot = state.to_json()
            snapshots.append(json.dumps(snapshot, sort_keys=True))
            _check_serialisation(engine, state, snapshot)
            _check_observations(state, seed)
            if state.is_terminal():
                break
            for move in legal:
                state.clone().apply(move)
            for bad in _bad_moves(state, legal, seen, rng):
                with pytest.raises(IllegalMoveError):
                    state.apply(bad)
                assert state.to_json() == snapshot, f"illegal {bad!r} changed the state"
            seen.extend(legal[:20])
            move = rng.choice(legal)
            clone = state.clone()
            state.apply(move)
            assert clone.to_json() == snapshot, "apply on one state changed its clone"
            played.append(move)
        _check_result(state)
        _check_replay(engine, seats, full_options, seed, played, snapshots)


def _check_serialisation(engine: Engine, state: State, snapshot: dict) -> None:
    text = json.dumps(snapshot, allow_nan=False)
    loaded = engine.state_from_json(json.loads(text))
    assert loaded.to_json() == snapshot
    assert loaded.legal_moves() == state.legal_moves()
    assert loaded.to_move() == state.to_move()
    assert loaded.public_observation() == state.public_observation()
    if not state.is_terminal():
        # The restored state must continue identically, random stream included.
        move = state.legal_moves()[0]
        a, b = state.clone(), loaded
        a.apply(move)
        b.apply(move)
        assert a.to_json() == b.to_json()


def _json_safe(value: object) -> None:
    assert json.loads(json.dumps(value, allow_nan=False)) == value, "not plain JSON (tuples, non-str keys?)"


def _check_observations(state: State, seed: int) -> None:
    public = state.public_observation()
    _json_safe(public)
    for seat in range(state.seats):
        obs = state.observation(seat)
        _json_safe(obs)
        if state.engine.hidden_information:
            # Re-dealing what this seat cannot see must not change what it sees.
            other = state.resample_hidden(seat, seed + 7919 * (seat + 1) + state.ply)
            assert other.observation(seat) == obs, f"seat {seat} sees something hidden from it"
            assert other.public_observation() == public
            assert other.legal_moves() == state.legal_moves() or state.to_move() != seat


def _check_replay(engine: Engine, seats: int, options: dict, seed: int, moves: list[str], snapshots: list[str]) -> None:
    replay = Replay(engine.id, engine.version, seats, options, seed, list(moves))
    replay = Replay.from_json(json.loads(json.dumps(replay.to_json())))
    states = replay.states()
    assert len(states) == len(snapshots)
    for state, snap in zip(states, snapshots, strict=True):
        assert json.dumps(state.to_json(), sort_keys=True) == snap


@pytest.mark.parametrize("engine", [e for e in ENGINES if e.hidden_information], ids=lambda e: e.id)
def test_resampling_changes_hidden_information(engine: Engine) -> None:
    """The leak check above is only meaningful if resampling really re-deals something."""
    seats, options = engine.configs()[0]
    state = engine.new_state(options, seed=5, seats=seats)
    changed = any(state.resample_hidden(0, s).to_json() != state.to_json() for s in range(10))
    assert changed


@pytest.mark.parametrize(("engine_id", "seats", "options"), CASES)
def test_no_observation_shows_the_seed(engine_id: str, seats: int, options: dict) -> None:
    """A seat, or a spectator, never reads the match's seed: with it and the engines it would know every deal."""
    engine = get_engine(engine_id)
    rng = random.Random(63)
    for _ in range(3):
        seed = rng.getrandbits(63) | 1 << 62  # a seed as the service draws it, 19 digits long
        state = engine.new_state(options, seed=seed, seats=seats)
        while True:
            views = [state.public_observation(), *(state.observation(s) for s in range(seats))]
            for view in views:
                assert str(seed) not in json.dumps(view), f"an observation at ply {state.ply} holds the seed"
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_moves()))


@pytest.mark.parametrize(("engine_id", "seats", "options"), CASES)
def test_a_seat_sees_more_than_spectators_only_in_hidden_information_games(
    engine_id: str, seats: int, options: dict
) -> None:
    """``hidden_information`` is what the service keeps seeds and replays' hands secret by: it must be true."""
    engine = get_engine(engine_id)
    state, _ = random_playout(engine, seed=11, options=options, seats=seats)
    states = [engine.new_state(options, seed=11, seats=seats), state]
    private = set()
    for one in states:
        public = one.public_observation()
        for seat in range(seats):
            own = one.observation(seat)
            assert own.get("seat", seat) == seat
            private |= {k for k in own if k != "seat" and (k not in public or own[k] != public[k])}
    if engine.hidden_information:
        assert private, "a game that hides information shows each seat something of its own"
    else:
        assert not private, f"{engine_id} shows a seat {sorted(private)} beyond what spectators see"


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.id)
def test_seeds_matter_only_for_chance(engine: Engine) -> None:
    seats, options = engine.configs()[0]
    a = engine.new_state(options, seed=1, seats=seats)
    b = engine.new_state(options, seed=2, seats=seats)
    if engine.has_chance:
        assert a.observation(0) != b.observation(0) or a.to_json() != b.to_json()
    else:
        assert a.legal_moves() == b.legal_moves()
        assert a.public_observation() == b.public_observation()
