"""A replay follows the rules of the engine version that played the match."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engines import get_engine
from tournaments.matches.models import Match
from tournaments.web.replay import replay_build

pytestmark = pytest.mark.django_db


def _recorded(version: str, games: Any) -> Match:
    engine = get_engine("sequence")
    state = engine.new_state_for_version(version, {"max_plies": 60}, seed=5, seats=2)
    rng, moves = random.Random(5), []
    while not state.is_terminal():
        seat, move = state.to_move(), rng.choice(state.legal_moves())
        state.apply(move)
        moves.append({"seat": seat, "move": move, "ms": 1})
    return Match.objects.create(
        game_id="sequence", engine_version=version, options=engine.validate_options({"max_plies": 60}, 2), seats=2,
        seed=5, rating_pool="p", status="finished", attempt=1, moves=moves,
    )  # fmt: skip


@pytest.mark.parametrize("version", ["1", "2", "3"])
def test_old_and_new_sequence_matches_replay_to_the_end(games: Any, version: str) -> None:
    match = _recorded(version, games)
    replay = replay_build(match=match, visible_seats=set())
    assert replay.problem == "", replay.problem
    assert len(replay.plies) == len(match.moves) + 1


def test_an_unknown_version_says_so(games: Any) -> None:
    match = _recorded("2", games)
    Match.objects.filter(pk=match.pk).update(engine_version="99")
    match.refresh_from_db()
    assert "cannot replay" in replay_build(match=match, visible_seats=set()).problem
