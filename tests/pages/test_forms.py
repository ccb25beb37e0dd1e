"""The pages that write, through Django's test client: each form reaches the same service as the API.

Sign-up, log-in, tokens, uploads (and the API's refusals, word for word),
visibility, deactivation, and round robins created, counted, started and
cancelled from their forms.
"""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings

from tests.pages.support import RANDOM_BOT, make_bot, zip_of
from tournaments.accounts.models import ApiToken
from tournaments.accounts.services import token_create
from tournaments.bots.models import Bot
from tournaments.competitions.models import Tournament
from tournaments.matches.models import Match

pytestmark = pytest.mark.django_db


def _signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_sign_up_log_out_log_in_and_change_password(games: None) -> None:
    client = Client()
    assert client.get("/signup/").status_code == 200
    response = client.post("/signup/", {"username": "newbie", "password": "fresh-pass-phrase"})
    assert response.status_code == 302 and response["Location"] == "/me/bots/"
    user = get_user_model().objects.get(username="newbie")
    assert ApiToken.objects.filter(user=user).exists()  # the same sign-up as the API: with a token
    assert "newbie" in client.get("/me/bots/").content.decode()

    taken = Client().post("/signup/", {"username": "NewBie", "password": "other-pass-phrase"})
    assert taken.status_code == 400 and "That username, or one that looks like it, is taken." in taken.content.decode()
    short = Client().post("/signup/", {"username": "shorty", "password": "abc"})
    assert short.status_code == 400 and "too short" in short.content.decode()

    assert client.post("/logout/").status_code == 302
    assert client.get("/me/bots/")["Location"].startswith("/login/")
    assert client.post("/login/", {"username": "newbie", "password": "wrong"}).status_code == 200
    assert client.post("/login/", {"username": "newbie", "password": "fresh-pass-phrase"})["Location"] == "/me/bots/"
    changed = client.post(
        "/me/password/",
        {"old_password": "fresh-pass-phrase", "new_password1": "brand-new-pw", "new_password2": "brand-new-pw"},
    )
    assert changed["Location"] == "/me/password/done/"
    assert get_user_model().objects.get(username="newbie").check_password("brand-new-pw")


def test_tokens_are_made_shown_once_listed_and_revoked(alice: Any) -> None:
    client = _signed_in(alice)
    assert "No token." in client.get("/me/tokens/").content.decode()
    assert client.post("/me/tokens/new/")["Location"] == "/me/tokens/"
    key = client.session["web_new_token"]
    page = client.get("/me/tokens/").content.decode()
    assert key in page  # shown right after it is made
    again = client.get("/me/tokens/").content.decode()
    assert key not in again and key[:8] in again  # then only its start
    api = Client(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/users/me/").status_code == 200
    client.post("/me/tokens/revoke/", {"key_start": key[:8]})
    assert not ApiToken.objects.filter(user=alice).exists()
    assert api.get("/api/users/me/").status_code == 401
    # Another user's token cannot be revoked by its prefix.
    theirs, their_key = token_create(user=get_user_model().objects.create_user(username="zed", password="zed-pw"))
    client.post("/me/tokens/revoke/", {"key_start": their_key[:8]})
    assert ApiToken.objects.filter(pk=theirs.pk).exists()
    # Writes need the CSRF token in a real browser session.
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    assert strict.post("/me/tokens/new/").status_code == 403


def test_upload_bot_and_versions_with_the_api_checks(games: None, alice: Any, bob: Any) -> None:
    client = _signed_in(alice)
    form = {"game": "gamesup", "name": "rnd", "visibility": "public", "description": "", "notes": "first"}
    response = client.post("/bots/new/", {**form, "package": SimpleUploadedFile("random_bot.py", RANDOM_BOT)})
    bot = Bot.objects.get(owner=alice, name="rnd")
    assert response["Location"] == f"/bots/{bot.id}/"
    assert "Uploaded rnd v1" in client.get(response["Location"]).content.decode()

    # The API's refusals, with its messages.
    api = Client(HTTP_AUTHORIZATION=f"Token {token_create(user=alice)[1]}")
    for name, data in [("empty.py", b""), ("bad.zip", b"not a zip"), ("x.zip", zip_of({"readme.txt": b"hi"}))]:
        page = client.post("/bots/new/", {**form, "name": "other", "package": SimpleUploadedFile(name, data)})
        api_error = api.post("/api/bots/", {**form, "name": "other", "package": SimpleUploadedFile(name, data)})
        message = api_error.json()["error"]["message"].removeprefix("package: ")
        assert page.status_code == 400 and message in html.unescape(page.content.decode()), name
    dup = client.post("/bots/new/", {**form, "package": SimpleUploadedFile("random_bot.py", RANDOM_BOT)})
    assert dup.status_code == 400 and "You already have a bot named" in dup.content.decode()

    new = client.post(
        f"/bots/{bot.id}/versions/new/", {"package": SimpleUploadedFile("b.zip", zip_of({"main.py": RANDOM_BOT}))}
    )
    assert new["Location"] == f"/bots/{bot.id}/"
    assert list(bot.versions.values_list("number", flat=True).order_by("number")) == [1, 2]
    # Only the owner uploads versions or changes the bot.
    other = _signed_in(bob)
    refused = other.post(f"/bots/{bot.id}/versions/new/", {"package": SimpleUploadedFile("r.py", RANDOM_BOT)})
    assert refused.status_code == 400
    assert "Only the bot's owner can upload versions." in html.unescape(refused.content.decode())
    other.post(f"/bots/{bot.id}/deactivate/")
    assert Bot.objects.get(pk=bot.pk).active

    client.post(f"/bots/{bot.id}/settings/", {"visibility": "private", "description": "hidden"})
    assert Bot.objects.get(pk=bot.pk).visibility == "private"
    assert other.get(f"/bots/{bot.id}/").status_code == 404
    client.post(f"/bots/{bot.id}/deactivate/")
    assert not Bot.objects.get(pk=bot.pk).active
    late = client.post(f"/bots/{bot.id}/versions/new/", {"package": SimpleUploadedFile("r.py", RANDOM_BOT)})
    assert "This bot is deactivated." in html.unescape(late.content.decode())
    listing = client.get("/me/bots/").content.decode()
    assert "rnd" in listing and "deactivated" in listing


def test_round_robin_counted_created_started_and_cancelled(games: None, alice: Any, bob: Any) -> None:
    bots = [make_bot(owner=alice, game="gamesup", name=f"b{i}") for i in range(3)]
    private = make_bot(owner=bob, game="gamesup", name="secret", visibility="private")
    client = _signed_in(alice)
    assert "Game" in client.get("/tournaments/new/").content.decode()
    page = client.get("/tournaments/new/?game=gamesup").content.decode()
    assert "secret" not in page and all(b.name in page for b in bots)
    form = {
        "game": "gamesup", "name": "web rr", "seats": "2", "participants": [str(b.id) for b in bots],
        "format": "double", "games_per_pairing": "3", "move_ms": "1000", "game_ms": "60000",
        "startup_ms": "10000", "rated": "on",
    }  # fmt: skip
    # 3 pairs x 3 games x 2 legs.
    counted = client.post("/tournaments/new/", {**form, "count": "1"})
    assert "<strong>18</strong> matches" in counted.content.decode()
    assert client.get("/tournaments/new/count/", form).json() == {"matches": 18}
    assert not Tournament.objects.exists()

    bad_clock = client.post("/tournaments/new/", {**form, "move_ms": "999999", "create": "1"})
    assert bad_clock.status_code == 400 and not Tournament.objects.exists()
    hidden = client.post("/tournaments/new/", {**form, "participants": [str(private.id)], "create": "1"})
    assert hidden.status_code == 400

    created = client.post("/tournaments/new/", {**form, "create": "1"})
    tournament = Tournament.objects.get()
    assert created["Location"] == f"/tournaments/{tournament.id}/"
    assert tournament.status == "draft" and tournament.format == "double" and tournament.games_per_pairing == 3
    assert _signed_in(bob).post(f"/tournaments/{tournament.id}/start/").status_code == 302
    assert Tournament.objects.get().status == "draft"  # not bob's
    client.post(f"/tournaments/{tournament.id}/start/")
    assert Tournament.objects.get().status == "running"
    assert Match.objects.filter(tournament=tournament).count() == 18
    client.post(f"/tournaments/{tournament.id}/cancel/")
    assert Tournament.objects.get().status == "cancelled"


def test_api_root_links_docs_schema_and_resources(client: Client) -> None:
    body = client.get("/api/").json()
    assert body["docs"].endswith("/api/docs/") and body["schema"].endswith("/api/schema/")
    for key in ["games", "bots", "tournaments", "matches"]:
        assert client.get(body["resources"][key]).status_code == 200, key


def test_favicon_and_a_branded_admin(client: Client, games: None) -> None:
    icon = client.get("/favicon.ico")
    assert icon.status_code == 301 and icon["Location"].endswith("/web/favicon.svg")
    staff = get_user_model().objects.create_superuser(username="boss", password="boss-pw")
    client.force_login(staff)
    page = client.get("/admin/").content.decode()
    assert "Arbiter administration" in page and "Django administration" not in page
    # A tournament's participants read as bots with their versions, not as ids.
    bots = [make_bot(owner=staff, game="gamesup", name=f"adm{i}") for i in range(2)]
    client.post(
        "/tournaments/new/",
        {"game": "gamesup", "seats": "2", "participants": [str(b.id) for b in bots], "format": "single",
         "games_per_pairing": "1", "move_ms": "1000", "game_ms": "60000", "startup_ms": "10000", "create": "1"},
    )  # fmt: skip
    tournament = Tournament.objects.get()
    change = client.get(f"/admin/competitions/tournament/{tournament.id}/change/").content.decode()
    assert "adm0 v1" in change and "adm1 v1" in change and f"{tournament.id}#0" not in change


def test_uploads_share_the_api_budget(games: None, alice: Any) -> None:
    cache.clear()
    client = _signed_in(alice)
    api = Client(HTTP_AUTHORIZATION=f"Token {token_create(user=alice)[1]}")
    with override_settings(ARBITER_THROTTLE_RATES={"uploads": "1/hour", "challenges": "1/hour"}):
        form = {"game": "gamesup", "visibility": "public"}
        first = api.post("/api/bots/", {**form, "name": "a", "package": SimpleUploadedFile("r.py", RANDOM_BOT)})
        assert first.status_code == 201
        page = client.post("/bots/new/", {**form, "name": "b", "package": SimpleUploadedFile("r.py", RANDOM_BOT)})
        assert page.status_code == 400 and "Too many uploads; try again in" in page.content.decode()
    assert list(Bot.objects.values_list("name", flat=True)) == ["a"]
    cache.clear()
