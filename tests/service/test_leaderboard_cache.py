"""The leaderboard API's response cache: reused for its lifetime, per viewer, then fresh."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.cache import cache
from django.test import override_settings
from rest_framework.test import APIClient

from tournaments.bots.models import Bot
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.models import Match
from tournaments.ratings.api import leaderboard_cache_key


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    cache.clear()


def _games(client: APIClient) -> dict[int, int]:
    return {r["bot"]: r["games"] for r in client.get("/api/ratings/?game=gamesup").json()["results"]}


def test_leaderboard_is_reused_for_its_lifetime_then_fresh(
    user: Any, other: Any, staff: Any, make_bot: Callable[..., Bot], play: Callable[..., bool]
) -> None:
    a, b = make_bot(), make_bot(owner=other)
    # Staff-run: rated in the public pool, the leaderboard read here.
    tournament = tournament_create(owner=staff, game_id="gamesup", name="t", bot_ids=[a.id, b.id])
    tournament_start(tournament=tournament, user=staff)
    first, second = Match.objects.filter(tournament=tournament).order_by("id")
    play(first, [1, 2])

    anonymous, owner = APIClient(), APIClient()
    owner.force_authenticate(user)
    with override_settings(ARBITER_LEADERBOARD_CACHE_S=60):
        assert _games(anonymous) == {a.id: 1, b.id: 1}
        play(second, [2, 1])
        # The same viewer and URL within the lifetime: the stored page.
        assert _games(anonymous) == {a.id: 1, b.id: 1}
        # Another viewer has a page of its own, read now.
        assert _games(owner) == {a.id: 2, b.id: 2}
    with override_settings(ARBITER_LEADERBOARD_CACHE_S=0):
        assert _games(anonymous) == {a.id: 2, b.id: 2}


def test_a_page_past_its_lifetime_is_served_while_another_request_computes_the_next(
    staff: Any, make_bot: Callable[..., Bot], play: Callable[..., bool]
) -> None:
    a, b = make_bot(owner="new"), make_bot(owner="new")
    tournament = tournament_create(owner=staff, game_id="gamesup", name="t", bot_ids=[a.id, b.id])
    tournament_start(tournament=tournament, user=staff)
    first, _ = Match.objects.filter(tournament=tournament).order_by("id")
    play(first, [1, 2])
    path = "/api/ratings/?game=gamesup"
    key = leaderboard_cache_key(viewer="anonymous", game_id=None, path=path)
    anonymous = APIClient()
    with override_settings(ARBITER_LEADERBOARD_CACHE_S=60):
        # A page that ran out long ago (no games yet), while another request is computing the next one.
        cache.set(key, (0.0, {"count": 0, "next": None, "previous": None, "results": []}), 60)
        assert cache.add(f"{key}:computing", 1, 60)
        assert _games(anonymous) == {}
        # That request is done (or gave up): the next reader computes the page and keeps it.
        cache.delete(f"{key}:computing")
        assert _games(anonymous) == {a.id: 1, b.id: 1}
        assert cache.get(key)[1]["results"] and cache.get(f"{key}:computing") is None
