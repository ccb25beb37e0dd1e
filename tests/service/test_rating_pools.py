"""Organisers' own pools: every game a user arranges is rated in that user's pool, and only there;
public pools take the ladder's and staff's games; the rebuild and the error bars cover every pool."""

from __future__ import annotations

from io import StringIO
from typing import Any
from urllib.parse import quote

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from rest_framework.test import APIClient

from tournaments.bots.models import Bot
from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.ratings.fits import pool_fits_refresh
from tournaments.ratings.models import PoolFit, Rating
from tournaments.ratings.pools import organiser_pool, rating_pool_choose

PUBLIC = "gamesup:target=21"


def _round_robin(owner: Any, bots: list[Bot], games: int = 1, start: bool = True) -> Tournament:
    tournament = tournament_create(
        owner=owner, game_id="gamesup", name="t", bot_ids=[b.id for b in bots], games_per_pairing=games
    )
    return tournament_start(tournament=tournament, user=owner) if start else tournament


def _play_all(tournament: Tournament, play: Any) -> None:
    """The first seat wins every other game, the second the rest."""
    for k, match in enumerate(tournament.matches.order_by("index")):
        play(match, [1, 2] if k % 2 == 0 else [2, 1])


def _board(query: str) -> dict[str, dict[str, Any]]:
    return {r["bot_name"]: r for r in APIClient().get(f"/api/ratings/?game=gamesup{query}").json()["results"]}


def test_the_pool_is_chosen_by_who_picked_the_opponents(user: Any, staff: Any, settings: Any) -> None:
    assert rating_pool_choose(base=PUBLIC, organiser=None) == PUBLIC  # the ladder: the service chose
    assert rating_pool_choose(base=PUBLIC, organiser=staff) == PUBLIC
    assert rating_pool_choose(base=PUBLIC, organiser=user) == f"{PUBLIC}@{user.id}"
    assert rating_pool_choose(base="flagstacks", organiser=user) == f"flagstacks@{user.id}"
    settings.ARBITER_RATINGS_ALL_PUBLIC = True
    assert rating_pool_choose(base=PUBLIC, organiser=user) == PUBLIC


@pytest.fixture
def tight(settings: Any) -> None:
    settings.ARBITER_RATING_MIN_GAMES = 3
    settings.ARBITER_RATING_MIN_OWNERS = 2


def test_an_organisers_games_are_all_rated_in_their_own_pool_and_nowhere_else(
    tight: None, user: Any, other: Any, make_bot: Any, play: Any
) -> None:
    mine_a, mine_b = make_bot(owner=user, name="a"), make_bot(owner=user, name="b")
    theirs = make_bot(owner=other, name="c")
    tournament = _round_robin(user, [mine_a, mine_b, theirs], games=2)
    own = f"{PUBLIC}@{user.id}"
    assert tournament.rating_pool == own
    # The owner's own bots' games against each other are rated too: farming here fools only the owner.
    assert set(tournament.matches.values_list("rated", "rating_pool")) == {(True, own)}
    _play_all(tournament, play)
    assert set(Rating.objects.values_list("pool", flat=True)) == {own}
    assert _board("") == {}
    board = _board(f"&organiser={user.username}")
    assert board == _board(f"&pool={own}")
    assert {name: row["games"] for name, row in board.items()} == {"a": 4, "b": 4, "c": 4}
    # An organiser's pool asks only for games: a and b met one other owner and are settled all the same.
    assert {row["provisional"] for row in board.values()} == {False}
    assert sorted(row["place"] for row in board.values()) == [1, 2, 3]


def test_an_organisers_pool_marks_too_few_games_only(tight: None, user: Any, make_bot: Any, play: Any) -> None:
    a, b = make_bot(owner=user, name="a"), make_bot(owner=user, name="b")
    _play_all(_round_robin(user, [a, b], games=2), play)
    board = _board(f"&organiser={user.username}")
    assert {name: (row["provisional"], row["provisional_reason"]) for name, row in board.items()} == {
        "a": (True, "2 of 3 rated games"),
        "b": (True, "2 of 3 rated games"),
    }


def test_with_every_game_public_a_users_tournament_is_rated_publicly_but_not_their_own_pairings(
    settings: Any, user: Any, other: Any, make_bot: Any, play: Any
) -> None:
    settings.ARBITER_RATINGS_ALL_PUBLIC = True
    mine_a, mine_b = make_bot(owner=user, name="a"), make_bot(owner=user, name="b")
    theirs = make_bot(owner=other, name="c")
    tournament = _round_robin(user, [mine_a, mine_b, theirs], games=1)
    assert tournament.rating_pool == PUBLIC
    assert sorted(tournament.matches.values_list("rated", flat=True)) == [False, True, True]
    _play_all(tournament, play)
    assert {name: row["games"] for name, row in _board("").items()} == {"a": 1, "b": 1, "c": 2}


def test_a_draft_is_rated_by_the_rule_in_force_when_it_starts(
    settings: Any, user: Any, other: Any, make_bot: Any
) -> None:
    settings.ARBITER_RATINGS_ALL_PUBLIC = True
    draft = _round_robin(user, [make_bot(owner=user), make_bot(owner=other)], start=False)
    assert draft.rating_pool == PUBLIC
    settings.ARBITER_RATINGS_ALL_PUBLIC = False
    started = tournament_start(tournament=draft, user=user)
    assert started.rating_pool == f"{PUBLIC}@{user.id}"
    assert set(started.matches.values_list("rating_pool", flat=True)) == {started.rating_pool}


def test_the_rebuild_and_the_error_bars_cover_organisers_pools(
    user: Any, other: Any, staff: Any, make_bot: Any, play: Any
) -> None:
    a, b, c = make_bot(owner=user, name="a"), make_bot(owner=user, name="b"), make_bot(owner=other, name="c")
    _play_all(_round_robin(staff, [a, c], games=3), play)  # public
    _play_all(_round_robin(user, [a, b, c], games=2), play)  # alice's own pool
    _play_all(_round_robin(other, [a, c], games=2), play)  # bob's own pool
    pools = {
        PUBLIC,
        organiser_pool(base=PUBLIC, organiser_id=user.id),
        organiser_pool(base=PUBLIC, organiser_id=other.id),
    }
    assert set(Rating.objects.values_list("pool", flat=True)) == pools

    out = StringIO()
    call_command("ratings_rebuild", "--check", stdout=out)
    assert "11 match(es) replayed, 7 rating(s) compared, 0 differ" in out.getvalue()

    # Every pool is fitted for its error bars, the organisers' too.
    assert set(pool_fits_refresh()) == pools
    assert set(PoolFit.objects.values_list("pool", flat=True)) == pools
    own = _board(f"&organiser={user.username}")
    assert all(row["elo_stderr"] is not None and row["elo_low"] < row["elo"] < row["elo_high"] for row in own.values())

    # A number that drifted in an organiser's pool is caught, and put back by --apply.
    drifted = Rating.objects.get(pool=organiser_pool(base=PUBLIC, organiser_id=other.id), bot_version__bot=c)
    Rating.objects.filter(pk=drifted.pk).update(elo=drifted.elo + 7)
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("ratings_rebuild", "--check", stdout=out)
    assert f"DIFF {drifted.pool} version {drifted.bot_version_id}" in out.getvalue()
    call_command("ratings_rebuild", "--apply", stdout=StringIO())
    call_command("ratings_rebuild", "--check", stdout=StringIO())


def test_the_leaderboard_page_names_the_organisers_pool_and_lists_yours(
    user: Any, other: Any, make_bot: Any, play: Any
) -> None:
    tournament = _round_robin(user, [make_bot(owner=user, name="a"), make_bot(owner=other, name="c")])
    _play_all(tournament, play)
    own = f"{PUBLIC}@{user.id}"
    browser = Client()
    browser.force_login(user)
    # The tournament's page says where its games are rated, and links there.
    listed = Client().get(f"/tournaments/{tournament.id}/").content.decode()
    assert f"{user.username}'s own pool</a>" in listed and f"?pool={quote(own)}" in listed
    page = browser.get(f"/games/gamesup/leaderboard/?pool={own}").content.decode()
    assert f"{user.username}'s own pool" in page and 'id="own-pools"' in page
    assert page.count('<tr data-bot="') == 2
    public = browser.get("/games/gamesup/leaderboard/").content.decode()
    assert "No rated bots in this pool yet." in public and f'?pool={quote(own)}" title="{own}">' in public
    # Someone else sees the pool (the tournament's page links to it) but has no pools of their own.
    assert Client().get(f"/games/gamesup/leaderboard/?pool={own}").status_code == 200
    assert 'id="own-pools"' not in Client().get("/games/gamesup/leaderboard/").content.decode()
    assert Client().get(f"/games/flagstacks/leaderboard/?pool={own}").status_code == 404


def test_the_leaderboard_api_refuses_a_pool_of_another_game_and_an_unknown_organiser(user: Any) -> None:
    wrong_game = APIClient().get(f"/api/ratings/?game=flagstacks&pool={PUBLIC}@{user.id}")
    assert wrong_game.status_code == 400 and wrong_game.json()["error"]["fields"] == {"pool": ["not of this game"]}
    nobody = APIClient().get("/api/ratings/?game=gamesup&organiser=nobody")
    assert nobody.status_code == 400 and nobody.json()["error"]["fields"] == {"organiser": ["unknown user"]}
