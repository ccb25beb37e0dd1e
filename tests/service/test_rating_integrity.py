"""Public ratings cannot be farmed: in a public pool one owner's bots never rate each other, and a
bot's place is marked provisional until it has met enough games and enough other owners."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.test import APIClient

from tests.service.conftest import ranks_by_version
from tournaments.bots.models import Bot
from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.ratings.models import Rating
from tournaments.ratings.rebuild import ratings_differences

PUBLIC = "gamesup:target=21"


def _round_robin(owner: Any, bots: list[Bot], games: int = 1) -> Tournament:
    tournament = tournament_create(
        owner=owner, game_id="gamesup", name="t", bot_ids=[b.id for b in bots], games_per_pairing=games
    )
    return tournament_start(tournament=tournament, user=owner)


def _play_all(tournament: Tournament, play: Any, winner: Bot) -> None:
    """Play every match: ``winner`` wins its games, the first seat wins the others."""
    for match in tournament.matches.order_by("index"):
        versions = {s.bot_version_id: s.bot_version.bot_id for s in match.match_seats.select_related("bot_version")}
        won = next((v for v, b in versions.items() if b == winner.id), None)
        play(match, ranks_by_version(match, won) if won else [1, 2])


def _rebuild_agrees() -> None:
    differences, _, _ = ratings_differences()
    assert differences == []
    out = StringIO()
    call_command("ratings_rebuild", "--check", stdout=out)  # exits 1 on any difference


def test_in_a_public_pool_a_copy_beating_its_owners_crash_bot_gains_nothing(
    user: Any, staff: Any, make_bot: Any, play: Any
) -> None:
    copy = make_bot(owner=user, name="copy-of-random")
    crasher = make_bot(owner=user, name="crash-on-start")
    tournament = _round_robin(staff, [copy, crasher], games=100)
    assert tournament.rating_pool == PUBLIC  # staff-run: the public pool
    assert tournament.matches.count() == 100 and not tournament.matches.filter(rated=True).exists()
    for match in tournament.matches.all():
        seats = list(match.match_seats.select_related("bot_version").order_by("seat"))
        crashed = ["crash" if s.bot_version.bot_id == crasher.id else "ok" for s in seats]
        play(match, [2 if status == "crash" else 1 for status in crashed], crashed)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert not Rating.objects.exists()
    assert APIClient().get("/api/ratings/?game=gamesup").json()["results"] == []
    _rebuild_agrees()


def test_a_public_round_robin_rates_only_games_between_owners(
    user: Any, other: Any, staff: Any, make_bot: Any, play: Any
) -> None:
    mine_a, mine_b = make_bot(owner=user, name="a"), make_bot(owner=user, name="b")
    theirs = make_bot(owner=other, name="c")
    tournament = _round_robin(staff, [mine_a, mine_b, theirs], games=2)
    rated = {m.id: m.rated for m in tournament.matches.all()}
    assert sorted(rated.values()) == [False, False, True, True, True, True]
    _play_all(tournament, play, winner=mine_a)
    # a and b each played 2 rated games (against c); c played 4.
    games = dict(Rating.objects.values_list("bot_version__bot__name", "games"))
    assert games == {"a": 2, "b": 2, "c": 4}
    _rebuild_agrees()


@pytest.fixture
def tight(settings: Any) -> None:
    settings.ARBITER_RATING_MIN_GAMES = 3
    settings.ARBITER_RATING_MIN_OWNERS = 2


def test_provisional_bots_keep_a_place_after_the_settled_ones_with_the_reason(
    tight: None, staff: Any, make_bot: Any, play: Any
) -> None:
    # star meets three bots of three owners: 3 games, 3 other owners -> settled.  The others
    # have met only star's owner, once each: provisional, placed after star whatever their Elo.
    star = make_bot(owner="new", name="star")
    rivals = [make_bot(owner="new", name=f"rival{i}") for i in range(3)]
    for rival in rivals:
        _play_all(_round_robin(staff, [star, rival]), play, winner=rival)
    ratings = {r.bot_version.bot.name: r for r in Rating.objects.select_related("bot_version__bot")}
    assert ratings["star"].opponent_owners == 2  # counted only up to the minimum
    assert [r.opponent_owners for n, r in sorted(ratings.items()) if n != "star"] == [1, 1, 1]
    rows = APIClient().get("/api/ratings/?game=gamesup").json()["results"]
    why = "1 of 3 rated games; 1 of 2 other owners met"
    assert [(r["bot_name"], r["place"], r["provisional"], r["provisional_reason"]) for r in rows] == [
        ("star", 1, False, None),
        *[(name, place, True, why) for place, name in enumerate(("rival0", "rival1", "rival2"), start=2)],
    ]
    assert all(r["elo"] > rows[0]["elo"] for r in rows[1:])  # better Elo, still placed after star
    page = APIClient().get("/games/gamesup/leaderboard/").content.decode()
    assert page.count('class="provisional"') == 3 and page.count(f"provisional: {why}") == 3
    for place in (1, 2, 3, 4):
        assert f'data-place="{place}"' in page
    _rebuild_agrees()


def test_one_owners_bots_count_as_one_other_owner(tight: None, staff: Any, make_bot: Any, play: Any) -> None:
    farmer = get_user_model().objects.create_user(username="farmer", password="farmer-pw")
    target = make_bot(owner="new", name="target")
    feeders = [make_bot(owner=farmer, name=f"feeder{i}") for i in range(4)]
    for feeder in feeders:
        _play_all(_round_robin(staff, [target, feeder]), play, winner=target)
    rating = Rating.objects.get(bot_version__bot=target)
    assert (rating.games, rating.opponent_owners) == (4, 1)
    rows = APIClient().get("/api/ratings/?game=gamesup").json()["results"]
    assert {r["bot_name"]: r["provisional_reason"] for r in rows}["target"] == "1 of 2 other owners met"
    _rebuild_agrees()
