"""The pages through Django's test client: content, visibility, hidden hands, constant query counts."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from django.db import connection, reset_queries
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.pages.support import SHORT_GAMES, finished_tournament, make_bot, play_match
from tournaments.bots.services import bot_version_create
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.models import Match

pytestmark = pytest.mark.django_db


def _replay(response: Any) -> dict[str, Any]:
    """The replay data the page embedded with json_script."""
    html = response.content.decode()
    start = html.index('<script id="replay-data" type="application/json">') + len(
        '<script id="replay-data" type="application/json">'
    )
    return json.loads(html[start : html.index("</script>", start)])


def _queries(client: Client, url: str) -> int:
    reset_queries()  # a request clears the log as it starts: capture from an empty one
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, url
    assert ctx.captured_queries, url
    return len(ctx.captured_queries)


def _sequence_match(alice: Any, bob: Any) -> Match:
    game, seats, options = next(g for g in SHORT_GAMES if g[0] == "sequence")
    bots = [make_bot(owner=alice, game=game, name="mine"), make_bot(owner=bob, game=game, name="theirs")]
    tournament = finished_tournament(owner=alice, game=game, seats=seats, options=options, bots=bots, seed=11)
    return Match.objects.filter(tournament=tournament).get()


def test_every_page_shows_what_it_should(client: Client, games: None, alice: Any, bob: Any) -> None:
    bots = [make_bot(owner=alice, game="gamesup", name="blue-one"), make_bot(owner=bob, game="gamesup", name="red-two")]
    tournament = finished_tournament(
        owner=alice, game="gamesup", seats=2, options={"target": 13}, bots=bots, games_per_pairing=2
    )
    matches = list(Match.objects.filter(tournament=tournament).order_by("index"))

    index = client.get("/games/").content.decode()
    assert f"/tournaments/{tournament.id}/" in index and "/games/gamesup/leaderboard/" in index

    board = client.get(f"/games/gamesup/leaderboard/?pool={tournament.rating_pool}").content.decode()
    assert "blue-one" in board and "red-two" in board and f"/bots/{bots[0].id}/" in board

    page = client.get(f"/tournaments/{tournament.id}/").content.decode()
    for text in ("Standings", "Crosstable", 'id="progress"', "blue-one", "red-two", "Score %", "Forfeits", "Elo"):
        assert text in page
    assert f'max="{len(matches)}" value="{len(matches)}"' in page  # all done
    for match in matches:
        assert f"/matches/{match.id}/" in page

    bot = client.get(f"/bots/{bots[0].id}/").content.decode()
    assert 'class="rating-chart"' in bot and "<polyline" in bot and "v1" in bot
    assert f'data-points="{len(matches) + 1}"' in bot  # the start plus one point per rated game

    response = client.get(f"/matches/{matches[0].id}/")
    html = response.content.decode()
    assert matches[0].result_reason in html
    replay = _replay(response)
    assert [p["move"] for p in replay["plies"][1:]] == [m["move"] for m in matches[0].moves]
    assert [p["ms"] for p in replay["plies"][1:]] == [m["ms"] for m in matches[0].moves]
    assert replay["problem"] == "" and replay["hands"] == {}


def test_unknown_things_are_404(client: Client, games: None) -> None:
    for url in ("/tournaments/999/", "/bots/999/", "/matches/999/", "/games/nope/leaderboard/"):
        assert client.get(url).status_code == 404, url
    # A pool of another game is not this game's leaderboard.
    assert client.get("/games/gamesup/leaderboard/?pool=pileup").status_code == 404


def test_private_bots_only_for_their_owner_and_staff(
    client: Client, games: None, alice: Any, bob: Any, staff: Any
) -> None:
    private = make_bot(owner=alice, game="pileup", name="secret", visibility="private")
    assert client.get(f"/bots/{private.id}/").status_code == 404
    client.force_login(bob)
    assert client.get(f"/bots/{private.id}/").status_code == 404
    client.force_login(alice)
    assert client.get(f"/bots/{private.id}/").status_code == 200
    client.force_login(staff)
    assert client.get(f"/bots/{private.id}/").status_code == 200


def test_sequence_hands_never_leak(client: Client, games: None, alice: Any, bob: Any, staff: Any) -> None:
    match = _sequence_match(alice, bob)
    owners = {s.seat: s.bot_version.bot.owner_id for s in match.match_seats.select_related("bot_version__bot")}
    alice_seats = sorted(s for s, o in owners.items() if o == alice.id)
    bob_seats = sorted(s for s, o in owners.items() if o == bob.id)
    url = f"/matches/{match.id}/"

    def seen(user: Any) -> dict[str, Any]:
        c = Client()
        if user is not None:
            c.force_login(user)
        response = c.get(url)
        # Whatever else is on the page, no public observation carries a hand.
        replay = _replay(response)
        assert all("hand" not in p["obs"] and "seat" not in p["obs"] for p in replay["plies"])
        assert "hand" not in replay["constant"]
        return replay["hands"]

    assert seen(None) == {}
    assert sorted(int(s) for s in seen(alice)) == alice_seats
    assert sorted(int(s) for s in seen(bob)) == bob_seats
    assert sorted(int(s) for s in seen(staff)) == list(range(match.seats))

    # The hands shown are the engine's, ply by ply.
    from engines import get_engine

    hands = seen(alice)
    state = get_engine("sequence").new_state(match.options, seed=match.seed, seats=match.seats)
    seat = alice_seats[0]
    assert hands[str(seat)][0]["hand"] == state.observation(seat)["hand"]
    for ply, entry in enumerate(match.moves, start=1):
        state.apply(entry["move"])
        assert hands[str(seat)][ply]["hand"] == state.observation(seat)["hand"]


def test_replay_stops_at_a_move_the_engine_refuses(client: Client, games: None, alice: Any) -> None:
    bots = [make_bot(owner=alice, game="pileup", name=f"b{i}") for i in range(2)]
    tournament = finished_tournament(owner=alice, game="pileup", seats=2, options={}, bots=bots)
    match = Match.objects.filter(tournament=tournament).get()
    moves = list(match.moves)
    Match.objects.filter(id=match.id).update(moves=[*moves[:3], {"seat": 1, "move": "z9-z9", "ms": 5}, *moves[3:]])
    replay = _replay(client.get(f"/matches/{match.id}/"))
    assert len(replay["plies"]) == 4  # the start and three moves
    assert "move 4" in replay["problem"] and "z9-z9" in replay["problem"]


def _tournament(owner: Any, bots: list[Any], played: int) -> Any:
    tournament = tournament_create(
        owner=owner, game_id="pileup", name="q", bot_ids=[b.id for b in bots], options={"max_plies": 30}
    )
    tournament_start(tournament=tournament, user=owner)
    rng = random.Random(0)
    for match in list(Match.objects.filter(tournament=tournament).order_by("index"))[:played]:
        play_match(match, rng=rng)
    return tournament


def test_a_constant_number_of_queries_per_page(client: Client, games: None, alice: Any, bob: Any) -> None:
    client.force_login(alice)
    small_bots = [make_bot(owner=alice, game="pileup", name=f"s{i}") for i in range(2)]
    small = _tournament(alice, small_bots, played=1)
    small_match = Match.objects.filter(tournament=small, status="finished").first()
    pool = small.rating_pool
    few = {
        "tournament": _queries(client, f"/tournaments/{small.id}/"),
        "live": _queries(client, f"/tournaments/{small.id}/live/"),
        "bot": _queries(client, f"/bots/{small_bots[0].id}/"),
        "match": _queries(client, f"/matches/{small_match.id}/"),
        "leaderboard": _queries(client, f"/games/pileup/leaderboard/?pool={pool}"),
        "index": _queries(client, "/games/"),
    }
    # Three times the bots, more versions, matches, ratings and tournaments.
    big_bots = [make_bot(owner=bob, game="pileup", name=f"b{i}") for i in range(6)]
    bot_version_create(bot=big_bots[0], user=bob, package=b"print('v2')\n", filename="main.py")
    big = _tournament(bob, big_bots, played=12)
    _tournament(bob, big_bots[:3], played=3)
    big_match = Match.objects.filter(tournament=big, status="finished").first()
    many = {
        "tournament": _queries(client, f"/tournaments/{big.id}/"),
        "live": _queries(client, f"/tournaments/{big.id}/live/"),
        "bot": _queries(client, f"/bots/{big_bots[0].id}/"),
        "match": _queries(client, f"/matches/{big_match.id}/"),
        "leaderboard": _queries(client, f"/games/pileup/leaderboard/?pool={pool}"),
        "index": _queries(client, "/games/"),
    }
    assert few == many
