"""An all-active gauntlet's field is taken at the start: every active bot the owner may enter but the challenger's."""

from __future__ import annotations

from typing import Any

import pytest

from tournaments.bots.services import bot_deactivate
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.errors import ServiceError


def test_the_field_is_every_other_active_bot(user: Any, other: Any, make_bot: Any) -> None:
    challenger = make_bot(name="challenger")
    mine_private = make_bot(name="mine-private", visibility="private")
    theirs = make_bot(owner=other, name="theirs")
    make_bot(owner=other, name="theirs-private", visibility="private")
    make_bot(owner=other, name="hexstacks", game="hexstacks")
    gone = make_bot(owner="new", name="gone")
    draft = tournament_create(
        owner=user,
        game_id="gamesup",
        name="g",
        format="gauntlet",
        challenger_id=challenger.id,
        bot_ids=[],
        all_active=True,
    )
    bot_deactivate(bot=gone, user=gone.owner)
    late = make_bot(owner="new", name="late")  # made after the draft: the field is taken at the start
    tournament = tournament_start(tournament=draft, user=user)
    entries = list(tournament.entries.order_by("number").values_list("bot_version__bot_id", flat=True))
    assert entries == [challenger.id, mine_private.id, theirs.id, late.id]
    assert tournament.planned == 3 * 2


def test_a_withdrawn_challenger_cannot_start(user: Any, make_bot: Any) -> None:
    challenger, rival = make_bot(), make_bot(owner="new")
    draft = tournament_create(
        owner=user, game_id="gamesup", name="g", format="gauntlet", challenger_id=challenger.id, bot_ids=[rival.id]
    )
    bot_deactivate(bot=challenger, user=user)
    with pytest.raises(ServiceError) as refused:
        tournament_start(tournament=draft, user=user)
    assert "challenger" in refused.value.fields
