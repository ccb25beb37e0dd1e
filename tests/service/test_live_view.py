"""A running match's plies reach its page as spectators see them, through Redis or the embedded files.

The worker's ``LivePublisher`` is fed a real engine state (Sequence, the game
with hidden hands); ``match_live`` and ``/matches/<id>/live/`` must give back
every ply's public view and nothing a seat alone may know, only to users who
may see the match, only for the attempt that runs, and nothing once it ended.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test import Client

from engines import get_engine
from tests.ci import need
from tests.service.conftest import outcome_for
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.claim import match_claim
from tournaments.matches.live import LivePublisher, match_live
from tournaments.matches.models import Match
from tournaments.matches.record import match_record_error, match_record_result
from workers.match import MoveRecord

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["files", "redis"])
def backend(request: pytest.FixtureRequest, settings: Any, tmp_path: Path) -> Iterator[str]:
    """The embedded files, or the production Redis (its own key space: the test database's name)."""
    settings.ARBITER_LIVE_DIR = tmp_path / "live"
    settings.ARBITER_LIVE_REDIS_URL = ""
    if request.param == "files":
        yield "files"
        return
    url = os.environ.get("ARBITER_TEST_REDIS_URL", "")
    need(bool(url), "the Redis backend needs ARBITER_TEST_REDIS_URL")
    settings.ARBITER_LIVE_REDIS_URL = url
    yield "redis"
    client = redis.Redis.from_url(url)
    for key in client.scan_iter(f"arbiter:live:{connection.settings_dict['NAME']}:*"):
        client.delete(key)


def _sequence_match(owner: Any, make_bot: Any, visibility: str = "public") -> Match:
    bots = [make_bot(game="sequence", name=f"s{n}", visibility=visibility) for n in range(2)]
    tournament = tournament_create(
        owner=owner, game_id="sequence", name="live", bot_ids=[b.id for b in bots], games_per_pairing=1
    )
    tournament_start(tournament=tournament, user=owner)
    match = tournament.matches.get()
    return match


def _publish(match: Match, attempt: int, plies: int) -> list[dict[str, Any]]:
    """Play ``plies`` random moves of the match's own deal through a publisher; the public views published."""
    engine = get_engine(match.game_id)
    state = engine.new_state(match.options, seed=match.seed, seats=match.seats)
    publish = LivePublisher(match_id=match.id, attempt=attempt)
    publish(state, None)
    seen = [state.public_observation()]
    pick = random.Random(7)
    for _ in range(plies):
        seat = state.to_move()
        assert seat is not None
        move = pick.choice(state.legal_moves())
        state.apply(move)
        publish(state, MoveRecord(seat=seat, move=move, ms=3))
        seen.append(state.public_observation())
    publish.flush()  # with Redis, the process's flusher thread writes the plies
    return seen


def test_every_ply_reaches_the_page_as_spectators_see_it(backend: str, user: Any, make_bot: Any) -> None:
    match = _sequence_match(user, make_bot)
    attempt = match_claim(match_id=match.id, worker="w")
    assert attempt is not None
    seen = _publish(match, attempt, plies=6)

    body = match_live(user=AnonymousUser(), match_id=match.id)
    assert body is not None and body["status"] == "running" and body["attempt"] == attempt
    assert [p["obs"] for p in body["plies"]] == seen
    assert body["plies"][0]["move"] is None and all(p["ms"] == 3 for p in body["plies"][1:])
    # Spectators' view only: no hand, no deck order, no seed, even for the owner.
    text = json.dumps(match_live(user=user, match_id=match.id))
    assert '"hand"' not in text and '"seed"' not in text and '"pile"' not in text
    assert all("hand_sizes" in p["obs"] for p in body["plies"])

    tail = match_live(user=AnonymousUser(), match_id=match.id, since=5)
    assert tail is not None and [p["obs"] for p in tail["plies"]] == seen[5:]


def test_a_new_attempt_starts_its_own_list_and_the_old_worker_cannot_remove_it(
    backend: str, user: Any, make_bot: Any
) -> None:
    match = _sequence_match(user, make_bot)
    first = match_claim(match_id=match.id, worker="w1")
    assert first is not None
    _publish(match, first, plies=4)
    match_record_error(match_id=match.id, attempt=first, reason="worker lost", retry=True)
    second = match_claim(match_id=match.id, worker="w2")
    assert second == first + 1
    body = match_live(user=user, match_id=match.id)
    assert body is not None and body["attempt"] == second and body["plies"] == []  # the old game is not shown
    _publish(match, second, plies=2)
    LivePublisher(match_id=match.id, attempt=first).close()  # the first worker, late
    body = match_live(user=user, match_id=match.id)
    assert body is not None and len(body["plies"]) == 3

    assert match_record_result(match_id=match.id, attempt=second, record=outcome_for(match, [1, 2]))
    LivePublisher(match_id=match.id, attempt=second).close()
    assert match_live(user=user, match_id=match.id) == {"status": "finished", "attempt": second, "plies": []}


def test_the_live_endpoint_answers_only_those_who_may_see_the_match(
    backend: str, user: Any, other: Any, make_bot: Any
) -> None:
    # Private bots in their owner's own tournament: nobody else may see the match.
    match = _sequence_match(user, make_bot, visibility="private")
    attempt = match_claim(match_id=match.id, worker="w")
    assert attempt is not None
    _publish(match, attempt, plies=3)
    owner, stranger = Client(), Client()
    owner.force_login(user)
    stranger.force_login(other)
    url = f"/matches/{match.id}/live/"
    assert stranger.get(url).status_code == 404
    assert Client().get(url).status_code == 404
    response = owner.get(url, {"since": "2"})
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    assert [p["move"] is not None for p in response.json()["plies"]] == [True, True]
    assert len(owner.get(url, {"since": "nonsense"}).json()["plies"]) == 4
    # The page itself starts the viewer on the plies so far, with the address to ask for more.
    page = owner.get(f"/matches/{match.id}/").content.decode()
    assert f'data-live-url="{url}"' in page and '"hand"' not in page


def test_a_publisher_whose_redis_is_gone_gives_up_without_harming_the_match(
    settings: Any, user: Any, make_bot: Any
) -> None:
    settings.ARBITER_LIVE_REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    match = _sequence_match(user, make_bot)
    attempt = match_claim(match_id=match.id, worker="w")
    assert attempt is not None
    publish = LivePublisher(match_id=match.id, attempt=attempt)
    engine = get_engine(match.game_id)
    publish(engine.new_state(match.options, seed=match.seed, seats=match.seats), None)
    publish.flush()
    assert publish.broken
    assert match_live(user=user, match_id=match.id) == {"status": "running", "attempt": attempt, "plies": []}


def test_a_poll_reads_the_database_once_and_writes_nothing(
    backend: str, user: Any, make_bot: Any, django_assert_num_queries: Any
) -> None:
    match = _sequence_match(user, make_bot)
    attempt = match_claim(match_id=match.id, worker="w")
    assert attempt is not None
    _publish(match, attempt, plies=3)
    spectator, owner = Client(), Client()
    owner.force_login(user)
    url = f"/matches/{match.id}/live/"
    with django_assert_num_queries(1):  # the match row (visibility, status, attempt)
        assert len(spectator.get(url).json()["plies"]) == 4
    with django_assert_num_queries(3):  # a signed-in viewer adds the session and the user
        assert len(owner.get(url, {"since": "1"}).json()["plies"]) == 3
