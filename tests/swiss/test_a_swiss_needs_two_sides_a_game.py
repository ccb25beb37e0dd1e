"""Swiss pairs two sides a game: a game of three seats (or three teams) is refused with a clear error."""

from __future__ import annotations

from typing import Any

import pytest

from tournaments.competitions.services.tournaments import tournament_create
from tournaments.errors import ServiceError

pytestmark = pytest.mark.django_db


def test_a_swiss_needs_two_sides_a_game(user: Any, make_bot: Any) -> None:
    bots = [make_bot(game="sequence") for _ in range(4)]
    with pytest.raises(ServiceError) as refused:
        tournament_create(owner=user, game_id="sequence", name="s", bot_ids=[b.id for b in bots], seats=3,
                          format="swiss")  # fmt: skip
    assert refused.value.code == "format_needs_two_teams"
    assert "two sides" in str(refused.value)
    # Four seats in two teams of two is two sides: allowed.
    tournament_create(owner=user, game_id="sequence", name="s", bot_ids=[b.id for b in bots], seats=4,
                      options={"teams": 2}, format="swiss")  # fmt: skip
