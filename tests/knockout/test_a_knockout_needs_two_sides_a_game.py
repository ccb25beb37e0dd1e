"""A knockout pairs two sides a game: three seats are refused with a clear error, two teams of two are not."""

from __future__ import annotations

from typing import Any

import pytest

from tournaments.competitions.services.tournaments import tournament_create
from tournaments.errors import ServiceError

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("format", ["knockout", "double_elimination"])
def test_a_knockout_needs_two_sides_a_game(user: Any, make_bot: Any, format: str) -> None:
    bots = [make_bot(game="sequence") for _ in range(4)]
    with pytest.raises(ServiceError) as refused:
        tournament_create(owner=user, game_id="sequence", name="k", bot_ids=[b.id for b in bots], seats=3,
                          format=format)  # fmt: skip
    assert refused.value.code == "format_needs_two_teams"
    assert "A knockout pairs two sides" in str(refused.value)
    made = tournament_create(owner=user, game_id="sequence", name="k", bot_ids=[b.id for b in bots], seats=4,
                             options={"teams": 2}, format=format)  # fmt: skip
    assert made.format == format
