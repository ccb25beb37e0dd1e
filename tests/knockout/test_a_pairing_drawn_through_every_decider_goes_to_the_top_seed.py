"""A best-of-2 drawn in both games and in every decider too: the top seed goes through."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rounds import queue_played, seeds_of, tournament_started
from tournaments.competitions.brackets import DECIDERS_MOST
from tournaments.competitions.models import Tournament
from tournaments.competitions.selectors.brackets import tournament_bracket

pytestmark = pytest.mark.django_db


def test_a_pairing_drawn_through_every_decider_goes_to_the_top_seed(user: Any, make_bot: Any, play: Any) -> None:
    bots = [make_bot(), make_bot()]
    tournament = tournament_started(owner=user, bots=bots, format=Tournament.Format.KNOCKOUT, games_per_pairing=2)
    top, low = seeds_of(tournament)
    matches = queue_played(tournament=tournament, play=play, ranks=lambda match, seats: [1, 1])
    assert len(matches) == 2 + DECIDERS_MOST
    bracket = tournament_bracket(tournament=tournament)
    assert bracket["nodes"][0]["winner"]["bot_version"] == top
    assert [(p["place"], p["bot_version"]) for p in bracket["placings"]] == [(1, top), (2, low)]
