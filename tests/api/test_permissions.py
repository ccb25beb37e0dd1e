"""Who may do what: every API route and method, for anonymous, another user, the owner and staff.

The routes are read from the URL resolver, so a new route (or a new method on
a view) without a row in TABLE fails ``test_every_route_has_a_row``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import time
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from tests.api.conftest import assert_error
from tests.service.conftest import RANDOM_BOT
from tournaments.bots.services import bot_create, bot_update, bot_version_create
from tournaments.competitions.services.challenges import challenge_create
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.models import Match

ACTORS = ("anonymous", "other", "owner", "staff")
METHODS = ("get", "post", "put", "patch", "delete")


def url_routes() -> list[tuple[str, URLPattern]]:
    """(route as written, pattern) for every route of the site, includes walked."""
    found: list[tuple[str, URLPattern]] = []

    def walk(patterns: list[Any], prefix: str) -> None:
        for p in patterns:
            if isinstance(p, URLResolver):
                walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                found.append((prefix + str(p.pattern), p))

    walk(get_resolver().url_patterns, "")
    return found


def api_routes() -> set[tuple[str, str]]:
    """(url name, method) for every class-based view under /api/."""
    found: set[tuple[str, str]] = set()
    for route, p in url_routes():
        view_class = getattr(p.callback, "view_class", None) or getattr(p.callback, "cls", None)
        if not route.startswith("api/") or view_class is None:
            continue
        assert p.name, f"route {route} has no name"
        for method in METHODS:
            if hasattr(view_class, method):
                found.add((p.name, method))
    return found


@dataclass
class World:
    owner: Any
    other: Any
    staff: Any
    bot: Any  # the owner's public bot, versions 1 and 2
    rival: Any  # a third user's public bot of the same game
    tournament: Any  # the owner's draft tournament
    match: Any
    challenge: Any
    schedule: Any = None  # a staff member's recurring round robin
    version_test: Any = None  # the owner's test of the bot's v2 against v1


def _world() -> World:
    users = get_user_model().objects
    owner = users.create_user(username="owner", password="owner-pw")
    other = users.create_user(username="other", password="other-pw")
    staff = users.create_user(username="staff", password="staff-pw", is_staff=True)
    third = users.create_user(username="third", password="third-pw")
    bot = bot_create(owner=owner, game_id="gamesup", name="mine", package=RANDOM_BOT, filename="r.py").bot
    bot_version_create(bot=bot, user=owner, package=RANDOM_BOT + b"\n", filename="r.py")
    rival = bot_create(owner=third, game_id="gamesup", name="rival", package=RANDOM_BOT, filename="r.py").bot
    bot_create(owner=other, game_id="gamesup", name="others", package=RANDOM_BOT, filename="r.py")
    played = tournament_create(owner=owner, game_id="gamesup", name="played", bot_ids=[bot.id, rival.id],
                               games_per_pairing=1)  # fmt: skip
    tournament_start(tournament=played, user=owner)
    draft = tournament_create(owner=owner, game_id="gamesup", name="draft", bot_ids=[bot.id, rival.id])
    challenge = challenge_create(challenger=owner, bot_id=bot.id, opponent_id=rival.id, games=2)
    world = World(owner, other, staff, bot, rival, draft, Match.objects.filter(tournament=played).get(), challenge)
    from tournaments.competitions.models import TournamentSchedule
    from tournaments.competitions.services.schedules import schedule_save

    world.schedule = schedule_save(
        schedule=TournamentSchedule(name="Nightly", owner=staff, game_id="gamesup", seats=2, at_time=time(3))
    )
    from tournaments.competitions.services.version_tests import version_test_create

    world.version_test = version_test_create(user=owner, bot_id=bot.id, baseline_number=1)
    return world


def _upload(name: str) -> dict[str, Any]:
    return {"game": "gamesup", "name": name, "package": SimpleUploadedFile("r.py", RANDOM_BOT)}


# (url name, method) -> (path template, body or None, expected status per actor)
# Bodies and paths are filled from the World; "{bot}" is the owner's bot, etc.
A, O, W, S = ACTORS  # noqa: E741 (anonymous, other, owner, staff)
TABLE: dict[tuple[str, str], tuple[str, Any, dict[str, int]]] = {
    ("api-token", "post"): (
        "/api/auth/token/",
        lambda w: {"username": "owner", "password": "owner-pw"},
        {A: 200, O: 200, W: 200, S: 200},
    ),
    ("api-token", "delete"): ("/api/auth/token/", None, {A: 401, O: 204, W: 204, S: 204}),
    ("api-users", "post"): (
        "/api/users/",
        lambda w: {"username": "newcomer", "password": "a-fresh-pass-phrase"},
        {A: 201, O: 201, W: 201, S: 201},
    ),
    ("api-me", "get"): ("/api/users/me/", None, {A: 401, O: 200, W: 200, S: 200}),
    ("api-games", "get"): ("/api/games/", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-game", "get"): ("/api/games/gamesup/", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-game-rules", "get"): ("/api/games/gamesup/rules/", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-game-leaderboard", "get"): ("/api/games/gamesup/leaderboard/", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-bots", "get"): ("/api/bots/", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-bots", "post"): ("/api/bots/", lambda w: _upload("fresh"), {A: 401, O: 201, W: 201, S: 201}),
    ("api-bot", "get"): ("/api/bots/{bot}/", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-bot", "patch"): ("/api/bots/{bot}/", lambda w: {"description": "x"}, {A: 401, O: 403, W: 200, S: 403}),
    ("api-bot-versions", "get"): ("/api/bots/{bot}/versions/", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-bot-versions", "post"): (
        "/api/bots/{bot}/versions/",
        lambda w: {"package": SimpleUploadedFile("r.py", RANDOM_BOT + b"\n\n")},
        {A: 401, O: 403, W: 201, S: 403},
    ),
    ("api-bot-version-retire", "post"): ("/api/bots/{bot}/versions/1/retire/", None, {A: 401, O: 403, W: 200, S: 200}),
    ("api-bot-deactivate", "post"): ("/api/bots/{bot}/deactivate/", None, {A: 401, O: 403, W: 200, S: 200}),
    ("api-bot-ratings", "get"): ("/api/bots/{bot}/ratings/", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-tournaments", "get"): ("/api/tournaments/", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-tournaments", "post"): (
        "/api/tournaments/",
        lambda w: {"game": "gamesup", "participants": [w.bot.id, w.rival.id]},
        {A: 401, O: 201, W: 201, S: 201},
    ),
    ("api-tournament", "get"): ("/api/tournaments/{tournament}/", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-tournament-start", "post"): ("/api/tournaments/{tournament}/start/", None, {A: 401, O: 403, W: 200, S: 200}),
    ("api-tournament-cancel", "post"): (
        "/api/tournaments/{tournament}/cancel/",
        None,
        {A: 401, O: 403, W: 200, S: 200},
    ),
    ("api-tournament-standings", "get"): (
        "/api/tournaments/{tournament}/standings/",
        None,
        {A: 200, O: 200, W: 200, S: 200},
    ),
    ("api-tournament-crosstable", "get"): (
        "/api/tournaments/{tournament}/crosstable/",
        None,
        {A: 200, O: 200, W: 200, S: 200},
    ),
    ("api-tournament-los", "get"): ("/api/tournaments/{tournament}/los/", None, {A: 200, O: 200, W: 200, S: 200}),
    # The table's tournament is a round robin: everyone may ask, and hears it has no gauntlet report.
    ("api-tournament-gauntlet", "get"): (
        "/api/tournaments/{tournament}/gauntlet/",
        None,
        {A: 404, O: 404, W: 404, S: 404},
    ),
    # A round robin has no bracket either.
    ("api-tournament-bracket", "get"): (
        "/api/tournaments/{tournament}/bracket/",
        None,
        {A: 404, O: 404, W: 404, S: 404},
    ),
    ("api-tournament-rounds", "get"): (
        "/api/tournaments/{tournament}/rounds/",
        None,
        {A: 200, O: 200, W: 200, S: 200},
    ),
    ("api-matches", "get"): ("/api/matches/", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-match", "get"): ("/api/matches/{match}/", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-ratings", "get"): ("/api/ratings/?game=gamesup", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-challenges", "get"): ("/api/challenges/", None, {A: 401, O: 200, W: 200, S: 200}),
    ("api-challenges", "post"): (
        "/api/challenges/",
        lambda w: {"bot": w.bot.id, "opponent": w.rival.id, "games": 2},
        {A: 401, O: 403, W: 201, S: 403},
    ),
    ("api-challenge", "get"): ("/api/challenges/{challenge}/", None, {A: 401, O: 404, W: 200, S: 200}),
    ("api-challenge-cancel", "post"): (
        "/api/challenges/{challenge}/cancel/",
        None,
        {A: 401, O: 404, W: 200, S: 200},
    ),
    # Only the challenged bot's owner (a third user here) answers.
    ("api-challenge-accept", "post"): (
        "/api/challenges/{challenge}/accept/",
        None,
        {A: 401, O: 404, W: 403, S: 403},
    ),
    ("api-challenge-decline", "post"): (
        "/api/challenges/{challenge}/decline/",
        None,
        {A: 401, O: 404, W: 403, S: 403},
    ),
    # Recurring round robins: everyone reads, staff writes.
    ("api-schedules", "get"): ("/api/schedules/", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-schedules", "post"): (
        "/api/schedules/",
        lambda w: {"name": "Weekly", "game": "gamesup", "kind": "weekly", "weekday": 4, "at_time": "20:00"},
        {A: 401, O: 403, W: 403, S: 201},
    ),
    ("api-schedule", "get"): ("/api/schedules/{schedule}/", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-schedule", "patch"): (
        "/api/schedules/{schedule}/",
        lambda w: {"enabled": False},
        {A: 401, O: 403, W: 403, S: 200},
    ),
    # Version tests: the owner starts and cancels, whoever sees the bot reads.
    ("api-version-tests", "get"): ("/api/bots/{bot}/version-tests/", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-version-tests", "post"): (
        "/api/bots/{bot}/version-tests/",
        lambda w: {"baseline": 1, "elo1": 20},
        {A: 401, O: 403, W: 201, S: 403},
    ),
    ("api-version-test", "get"): (
        "/api/bots/{bot}/version-tests/{version_test}/",
        None,
        {A: 200, O: 200, W: 200, S: 200},
    ),
    ("api-version-test-cancel", "post"): (
        "/api/bots/{bot}/version-tests/{version_test}/cancel/",
        None,
        {A: 401, O: 403, W: 200, S: 403},
    ),
    ("api-root", "get"): ("/api/", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-schema", "get"): ("/api/schema/", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-docs", "get"): ("/api/docs/", None, {A: 200, O: 200, W: 200, S: 200}),
    ("api-redoc", "get"): ("/api/docs/redoc/", None, {A: 200, O: 200, W: 200, S: 200}),
}


def test_every_route_has_a_row() -> None:
    routes = api_routes()
    assert routes - set(TABLE) == set(), "routes without a permission row"
    assert set(TABLE) - routes == set(), "rows for routes that do not exist"


CASES = [(key, actor) for key in sorted(TABLE) for actor in ACTORS]


@pytest.mark.parametrize("key,actor", CASES, ids=[f"{k[0]}-{k[1]}-{a}" for k, a in CASES])
def test_permission(key: tuple[str, str], actor: str) -> None:
    world = _world()
    template, body, expected = TABLE[key]
    path = template.format(
        bot=world.bot.id,
        tournament=world.tournament.id,
        match=world.match.id,
        challenge=world.challenge.id,
        schedule=world.schedule.id,
        version_test=world.version_test.id,
    )
    client = APIClient()
    user = {"anonymous": None, "other": world.other, "owner": world.owner, "staff": world.staff}[actor]
    if user is not None:
        # A real token, as clients send it (force_authenticate would skip the authentication classes).
        token = APIClient().post("/api/auth/token/", {"username": user.username, "password": f"{user.username}-pw"})
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    data = body(world) if body else None
    multipart = isinstance(data, dict) and any(isinstance(v, SimpleUploadedFile) for v in data.values())
    response = getattr(client, key[1])(path, data, format="multipart" if multipart else "json")
    want = expected[actor]
    if want >= 400:
        assert_error(response, want)
    else:
        assert response.status_code == want, (response.status_code, response.content[:300])


# Private bots: the walk again, over every route that reads, with the ids of a private bot,
# its owner's tournament, a played match and a challenge.  No one but the owner and staff may
# meet its name, on any route: not anonymous, not another user, not the owner of the public
# bot it played against.
SECRET = "zz-secret-bot"
PAGES = (
    "/",
    "/games/",
    "/games/gamesup/leaderboard/",
    "/tournaments/{tournament}/",
    "/tournaments/{tournament}/live/",
    "/bots/{bot}/",
    "/bots/{rival}/",
    "/matches/{match}/",
)
QUERIES = (
    "/api/matches/?bot={bot}",
    "/api/matches/?tournament={tournament}",
    "/api/matches/?bot={rival}",
    "/api/bots/?owner={owner}",
    "/api/ratings/?game=gamesup&pool=gamesup:target=21",
    "/api/tournaments/?game=gamesup",
)


@dataclass
class PrivateWorld:
    world: World
    third: Any  # the owner of the public bot the private one played
    ids: dict[str, int]


def _private_world(play: Any) -> PrivateWorld:
    world = _world()
    third = get_user_model().objects.get(username="third")
    secret = bot_create(owner=world.owner, game_id="gamesup", name=SECRET, package=RANDOM_BOT, filename="r.py",
                        visibility="private").bot  # fmt: skip
    entrants = [secret.id, world.rival.id]
    cup = tournament_create(
        owner=world.owner, game_id="gamesup", name="secret cup", bot_ids=entrants, games_per_pairing=2
    )
    tournament_start(tournament=cup, user=world.owner)
    match = Match.objects.filter(tournament=cup).order_by("index").first()
    play(match, [1, 2])
    challenge = challenge_create(challenger=world.owner, bot_id=secret.id, opponent_id=world.rival.id, games=1)
    ids = {"bot": secret.id, "tournament": cup.id, "match": match.id, "challenge": challenge.id,
           "rival": world.rival.id, "owner": world.owner.id, "schedule": world.schedule.id,
           "version_test": world.version_test.id}  # fmt: skip
    return PrivateWorld(world, third, ids)


def _reads(ids: dict[str, int]) -> list[str]:
    api = [template.format(**ids) for (name, method), (template, _, _) in sorted(TABLE.items()) if method == "get"]
    return [*api, *(q.format(**ids) for q in QUERIES), *(p.format(**ids) for p in PAGES)]


def _signed_in(user: Any) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_login(user)  # pages and API alike (the session authenticates both)
    return client


@pytest.mark.parametrize("actor", ["anonymous", "other", "third"])
def test_no_route_shows_a_private_bot_to_anyone_else(actor: str, play: Any) -> None:
    private = _private_world(play)
    user = {"anonymous": None, "other": private.world.other, "third": private.third}[actor]
    client = _signed_in(user)
    seen = []
    for path in _reads(private.ids):
        response = client.get(path)
        assert response.status_code < 500, (path, response.status_code)
        if SECRET in response.content.decode(errors="replace"):
            seen.append(path)
    assert seen == []


@pytest.mark.parametrize("actor", ["owner", "staff"])
def test_the_owner_and_staff_see_the_private_bot_and_its_tournament(actor: str, play: Any) -> None:
    private = _private_world(play)
    client = _signed_in(getattr(private.world, actor))
    ids = private.ids
    paths = ("/api/tournaments/{tournament}/", "/api/tournaments/{tournament}/standings/", "/api/matches/?bot={bot}",
             "/api/matches/{match}/", "/tournaments/{tournament}/", "/bots/{bot}/")  # fmt: skip
    for path in paths:
        response = client.get(path.format(**ids))
        assert response.status_code == 200 and SECRET in response.content.decode(), path


def test_a_private_bot_enters_only_its_owners_tournaments(play: Any) -> None:
    private = _private_world(play)
    body = {"game": "gamesup", "participants": [private.ids["bot"], private.ids["rival"]]}
    for intruder in (private.world.other, private.world.staff):
        response = _signed_in(intruder).post("/api/tournaments/", body, format="json")
        assert_error(response, 400)
    assert _signed_in(private.world.owner).post("/api/tournaments/", body, format="json").status_code == 201


@pytest.mark.parametrize("actor", ["anonymous", "other"])
def test_a_bot_made_private_after_it_played_leaves_others_their_tournament(actor: str, play: Any) -> None:
    """The rival's owner cannot take the organiser's tournament, or its results, away from anyone."""
    world = _world()
    play(world.match, [1, 2])
    bot_update(bot=world.rival, user=get_user_model().objects.get(username="third"), visibility="private")
    client = _signed_in(None if actor == "anonymous" else world.other)
    tournament = world.match.tournament_id
    paths = [
        f"/api/tournaments/{tournament}/",
        f"/api/tournaments/{tournament}/standings/",
        f"/tournaments/{tournament}/",
    ]
    paths += [f"/api/matches/{world.match.id}/", f"/matches/{world.match.id}/"]
    for path in paths:
        assert client.get(path).status_code == 200, path
    listed = client.get(f"/api/matches/?tournament={tournament}").json()["results"]
    assert world.match.id in [m["id"] for m in listed]
    assert client.get(f"/api/bots/{world.rival.id}/").status_code == 404  # the bot itself is private now
