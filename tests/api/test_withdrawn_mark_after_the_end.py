"""A bot withdrawn after its tournament ended is marked at once, though no match changed (the cached table)."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import client_for
from tournaments.bots.services import bot_deactivate
from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_create, tournament_start


def test_a_bot_withdrawn_after_the_end_is_marked_on_the_next_read(user: Any, make_bot: Any, play: Any) -> None:
    a, quitter = (make_bot(owner="new", name=n) for n in ("a", "quitter"))
    draft = tournament_create(owner=user, game_id="gamesup", name="t", bot_ids=[a.id, quitter.id], games_per_pairing=1)
    tournament = tournament_start(tournament=draft, user=user)
    (only,) = tournament.matches.all()
    play(only, [1, 2])
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    url = f"/api/tournaments/{tournament.id}/standings/"

    def withdrawn() -> dict[str, bool]:
        return {r["bot_name"]: r["withdrawn"] for r in client_for(user).get(url).json()["standings"]}

    assert withdrawn() == {"a": False, "quitter": False}  # read once: the table is cached
    bot_deactivate(bot=quitter, user=quitter.owner)  # nothing left to cancel: no match changes
    assert withdrawn() == {"a": False, "quitter": True}
