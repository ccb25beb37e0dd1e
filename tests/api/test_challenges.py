"""Challenges: series between two bots rated in the challenger's own pool, seats swapped, a daily limit,
results in the API."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

from tests.api.conftest import assert_error, client_for
from tests.service.conftest import ranks_by_version
from tournaments.competitions.models import Challenge
from tournaments.matches.models import Match
from tournaments.ratings.models import Rating


def test_a_series_with_seats_swapped(user: Any, other: Any, make_bot: Any, play: Any) -> None:
    mine = make_bot(name="mine")
    theirs = make_bot(owner=other, name="theirs")
    client = client_for(user)
    response = client.post("/api/challenges/", {"bot": mine.id, "opponent": theirs.id, "games": 4}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "queued" and body["games"] == 4 and len(body["matches"]) == 4
    assert body["bot"]["bot"] == mine.id and body["opponent"]["bot"] == theirs.id
    matches = list(Match.objects.filter(challenge_link__challenge_id=body["id"]).order_by("challenge_link__number"))
    assert [m.id for m in matches] == [m["id"] for m in body["matches"]]
    own_pool = f"gamesup:target=21@{user.id}"
    for m in matches:
        assert (m.rated, m.rating_pool, m.tournament_id, m.kind, m.status) == (
            True, own_pool, None, "challenge", "queued"
        )  # fmt: skip
    first_seat = [m.match_seats.get(seat=0).bot_version.bot_id for m in matches]
    assert first_seat == [mine.id, theirs.id, mine.id, theirs.id]

    # The challenger wins games 1 and 2, loses game 3, draws game 4: rated in the challenger's own pool only.
    mine_version = body["bot"]["bot_version"]
    theirs_version = body["opponent"]["bot_version"]
    for match, winner in zip(matches, [mine_version, mine_version, theirs_version, None], strict=True):
        play(match, ranks_by_version(match, winner))
        if match is matches[1]:
            assert client.get(f"/api/challenges/{body['id']}/").json()["status"] == "running"
    detail = client.get(f"/api/challenges/{body['id']}/").json()
    assert detail["status"] == "finished"
    assert detail["score"] == {"side": "bot", "wins": 2, "draws": 1, "losses": 1, "points": 2.5}
    assert detail["progress"]["finished"] == 4
    assert all(m["challenge"] == body["id"] and m["rated"] is True for m in detail["matches"])
    assert client.get("/api/ratings/?game=gamesup").json()["results"] == []  # no public rating moves
    own = client.get(f"/api/ratings/?game=gamesup&organiser={user.username}").json()["results"]
    assert {(r["bot"], r["games"], r["wins"], r["draws"]) for r in own} == {(mine.id, 4, 2, 1), (theirs.id, 4, 1, 1)}

    # The opponent's owner sees it too; a stranger does not.
    assert [c["id"] for c in client_for(other).get("/api/challenges/").json()["results"]] == [body["id"]]
    stranger = get_user_model().objects.create_user(username="stranger", password="x-pw-1")
    assert client_for(stranger).get("/api/challenges/").json()["results"] == []
    assert_error(client_for(stranger).get(f"/api/challenges/{body['id']}/"), 404, "not_found")
    listed = client.get(f"/api/matches/?challenge={body['id']}&ordering=id").json()["results"]
    assert [m["id"] for m in listed] == [m.id for m in matches]


def test_refusals(user: Any, other: Any, make_bot: Any) -> None:
    mine = make_bot(name="mine")
    theirs = make_bot(owner=other, name="theirs")
    hidden = make_bot(owner=other, name="hidden", visibility="private")
    other_game = make_bot(owner=other, name="seq", game="sequence")
    client = client_for(user)

    def post(**body: Any) -> Any:
        return client.post("/api/challenges/", {"bot": mine.id, "opponent": theirs.id, **body}, format="json")

    assert assert_error(post(opponent=hidden.id), 400)["fields"] == {"opponent": ["unknown bot"]}
    assert assert_error(post(opponent=other_game.id), 400)["fields"] == {"opponent": ["wrong game"]}
    assert assert_error(post(opponent=mine.id), 400)["fields"] == {"opponent": ["same bot"]}
    assert assert_error(post(bot=theirs.id), 403)["fields"] == {"bot": ["not your bot"]}
    assert "games" in assert_error(post(games=21), 400)["fields"]
    assert "games" in assert_error(post(games=0), 400)["fields"]
    assert_error(client_for(None).post("/api/challenges/", {}, format="json"), 401, "not_authenticated")
    assert not Challenge.objects.exists() and not Match.objects.exists()


@override_settings(ARBITER_CHALLENGES_PER_DAY=2)
def test_daily_limit(user: Any, other: Any, make_bot: Any) -> None:
    mine = make_bot(name="mine")
    theirs = make_bot(owner=other, name="theirs")
    client = client_for(user)
    body = {"bot": mine.id, "opponent": theirs.id}
    assert client.post("/api/challenges/", body, format="json").status_code == 201
    assert client.post("/api/challenges/", body, format="json").status_code == 201
    error = assert_error(client.post("/api/challenges/", body, format="json"), 429, "challenge_limit")
    assert "2 challenges" in error["message"]
    assert Challenge.objects.count() == 2
    # Another user has their own allowance.
    reverse = {"bot": theirs.id, "opponent": mine.id}
    assert client_for(other).post("/api/challenges/", reverse, format="json").status_code == 201
    # Yesterday's challenges do not count.
    from datetime import timedelta

    from tournaments.dbclock import db_clock

    Challenge.objects.filter(challenger=user).update(created=db_clock() - timedelta(days=1))
    assert client.post("/api/challenges/", body, format="json").status_code == 201


@override_settings(ARBITER_THROTTLE_RATES={"uploads": "60/hour", "challenges": "2/minute"})
def test_request_rate_is_per_user(user: Any, other: Any, make_bot: Any) -> None:
    mine = make_bot(name="mine")
    theirs = make_bot(owner=other, name="theirs")
    client = client_for(user)
    body = {"bot": mine.id, "opponent": theirs.id}
    for _ in range(2):
        assert client.post("/api/challenges/", body, format="json").status_code == 201
    for _ in range(3):  # reading does not count
        assert client.get("/api/challenges/").status_code == 200
    assert_error(client.post("/api/challenges/", body, format="json"), 429, "throttled")
    reverse = {"bot": theirs.id, "opponent": mine.id}
    assert client_for(other).post("/api/challenges/", reverse, format="json").status_code == 201


@pytest.mark.sandbox
def test_a_challenge_game_is_played_by_the_worker_task(user: Any, other: Any, make_bot: Any) -> None:
    """The real task plays a challenge's game in the sandbox; it is recorded and rated in the challenger's pool."""
    from tournaments.matches import tasks

    mine = make_bot(name="mine")
    theirs = make_bot(owner=other, name="theirs")
    client = client_for(user)
    body = {"bot": mine.id, "opponent": theirs.id, "games": 1, "move_ms": 2000, "game_ms": 20000}
    made = client.post("/api/challenges/", body, format="json").json()
    match_id = made["matches"][0]["id"]
    assert tasks.run_next() == "finished"
    detail = client.get(f"/api/challenges/{made['id']}/").json()
    assert detail["status"] == "finished"
    score = detail["score"]
    assert score["wins"] + score["draws"] + score["losses"] == 1
    played = client.get(f"/api/matches/{match_id}/").json()
    assert played["moves"] and len(played["rating_changes"]) == 2 and played["rated"] is True
    assert set(Rating.objects.values_list("pool", flat=True)) == {f"gamesup:target=21@{user.id}"}


def test_admin_shows_challenges_retirements_and_tokens(user: Any, other: Any, make_bot: Any) -> None:
    from django.test import Client

    from tournaments.accounts.models import ApiToken

    mine = make_bot(name="mine")
    theirs = make_bot(owner=other, name="theirs")
    made = client_for(user).post("/api/challenges/", {"bot": mine.id, "opponent": theirs.id, "games": 2}, format="json")
    client_for(user).post(f"/api/bots/{mine.id}/versions/1/retire/")
    get_user_model().objects.create_superuser(username="boss", password="boss-pw")
    browser = Client()
    assert browser.login(username="boss", password="boss-pw")
    page = browser.get(f"/admin/competitions/challenge/{made.json()['id']}/change/")
    assert page.status_code == 200 and b"theirs" in page.content
    assert browser.get("/admin/competitions/challenge/").status_code == 200
    assert b"mine v1" in browser.get("/admin/bots/botversionretirement/").content
    # Staff create a user's token in the admin (and delete it there to revoke it).
    added = browser.post("/admin/accounts/apitoken/add/", {"user": other.id}, follow=True)
    assert added.status_code == 200 and ApiToken.objects.filter(user=other).exists()
    key = next(str(m) for m in added.context["messages"]).rsplit(" ", 1)[1]
    assert client_for().get("/api/users/me/", HTTP_AUTHORIZATION=f"Token {key}").json()["id"] == other.id


def test_team_game_sides(user: Any, other: Any, make_bot: Any) -> None:
    """In a team game each bot fills every seat of its side; sides swap every game; three sides are refused."""
    mine = make_bot(name="mine", game="sequence")
    theirs = make_bot(owner=other, name="theirs", game="sequence")
    client = client_for(user)
    body = {"bot": mine.id, "opponent": theirs.id, "games": 2, "seats": 4, "options": {"teams": 2}}
    made = client.post("/api/challenges/", body, format="json")
    assert made.status_code == 201, made.content
    sides = []
    for match in made.json()["matches"]:
        by_team: dict[int, set[int]] = {}
        for player in match["players"]:
            by_team.setdefault(player["team"], set()).add(player["bot"])
        assert all(len(bots) == 1 for bots in by_team.values()) and len(by_team) == 2
        sides.append([by_team[t].pop() for t in sorted(by_team)])
    assert sides == [[mine.id, theirs.id], [theirs.id, mine.id]]
    three = client.post("/api/challenges/", {**body, "seats": 3, "options": {}}, format="json")
    assert assert_error(three, 400, "invalid_options")["fields"] == {"seats": ["not two sides"]}
