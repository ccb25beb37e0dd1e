"""A bot withdrawn after the start keeps its place by the games it played, marked withdrawn (API and page)."""

from __future__ import annotations

from typing import Any

from django.test import Client

from tests.api.conftest import client_for
from tournaments.bots.services import bot_deactivate
from tournaments.competitions.services.tournaments import tournament_create, tournament_start


def test_standings_mark_a_withdrawn_bot_in_the_api_and_on_the_page(user: Any, make_bot: Any, play: Any) -> None:
    a, b, quitter = (make_bot(owner="new", name=n) for n in ("a", "b", "quitter"))
    draft = tournament_create(
        owner=user, game_id="gamesup", name="t", bot_ids=[a.id, b.id, quitter.id], games_per_pairing=1
    )
    tournament = tournament_start(tournament=draft, user=user)
    won = tournament.matches.filter(match_seats__bot_version__bot=quitter).order_by("index").first()
    assert won is not None
    seats = list(won.match_seats.order_by("seat").values_list("bot_version__bot_id", flat=True))
    play(won, [1, 2] if seats[0] == quitter.id else [2, 1])  # the quitter wins its one game
    bot_deactivate(bot=quitter, user=quitter.owner)

    rows = client_for(user).get(f"/api/tournaments/{tournament.id}/standings/").json()["standings"]
    by_name = {r["bot_name"]: r for r in rows}
    assert by_name["quitter"]["withdrawn"] is True and by_name["quitter"]["place"] == 1
    assert by_name["a"]["withdrawn"] is False and by_name["b"]["withdrawn"] is False

    page = Client().get(f"/tournaments/{tournament.id}/").content.decode()
    row = page[page.index(f'<tr data-bot="{quitter.id}">') :].split("</tr>", 1)[0]
    assert 'class="withdrawn"' in row
    assert 'id="withdrawn-note"' in page
    for other in (a, b):
        assert 'class="withdrawn"' not in page[page.index(f'<tr data-bot="{other.id}">') :].split("</tr>", 1)[0]
