"""Cancelling reaches the matches already running: a withdrawn bot's, a version test's, a challenge's.

A running match that is cancelled says so to its worker (``match_cancelled``,
read by the heartbeat thread of ``matches.runner``), refuses its lease and
any result the worker still sends, and rates nobody.  The worker's side, bots
stopped within seconds, is tests/service/test_cancel_stops_bots.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from tests.service.conftest import outcome_for
from tournaments.bots.services import bot_deactivate, bot_version_create
from tournaments.competitions.models import VersionTestMatch
from tournaments.competitions.services.challenges import challenge_cancel, challenge_create
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.competitions.services.version_tests import version_test_cancel, version_test_create
from tournaments.errors import ConflictError, ForbiddenError
from tournaments.matches.claim import match_claim
from tournaments.matches.life import match_cancelled, match_heartbeat
from tournaments.matches.models import Match
from tournaments.matches.record import match_record_result
from tournaments.ratings.models import RatingChange

from .conftest import RANDOM_BOT

pytestmark = pytest.mark.django_db


def _assert_stopped(match: Match, attempt: int) -> None:
    """Cancelled, its worker told, its lease and its late result refused, nobody rated."""
    match.refresh_from_db()
    assert match.status == "cancelled" and match.finished_at is not None
    assert match_cancelled(match_id=match.id)
    assert not match_heartbeat(match_id=match.id, attempt=attempt)
    assert not match_record_result(match_id=match.id, attempt=attempt, record=outcome_for(match, [1, 2]))
    assert not RatingChange.objects.filter(match=match).exists()
    assert set(match.match_seats.values_list("rank", "status")) == {(None, "")}


def test_a_deactivated_bots_running_tournament_match_is_cancelled(user: Any, make_bot: Any) -> None:
    a, quitter = make_bot(owner="new", name="a"), make_bot(owner="new", name="quitter")
    tournament = tournament_create(owner=user, game_id="gamesup", name="t", bot_ids=[a.id, quitter.id])
    tournament = tournament_start(tournament=tournament, user=user)
    running = tournament.matches.order_by("index").first()
    attempt = match_claim(match_id=running.id, worker="w")
    assert attempt is not None and not match_cancelled(match_id=running.id)
    bot_deactivate(bot=quitter, user=quitter.owner)
    _assert_stopped(running, attempt)
    assert set(tournament.matches.values_list("status", flat=True)) == {"cancelled"}
    tournament.refresh_from_db()
    assert tournament.status == "finished"  # nothing left to play


def _version_test(user: Any, make_bot: Any) -> Any:
    bot = make_bot(name="tested")
    bot_version_create(bot=bot, user=user, package=RANDOM_BOT + b"\n# v2\n", filename="random_bot.py")
    return version_test_create(user=user, bot_id=bot.id, baseline_number=1, pairs_in_flight=2)


def test_a_cancelled_version_tests_running_games_are_cancelled_once_it_commits(
    user: Any, make_bot: Any, django_capture_on_commit_callbacks: Any
) -> None:
    test = _version_test(user, make_bot)
    ids = list(VersionTestMatch.objects.filter(test=test).order_by("pair", "game").values_list("match_id", flat=True))
    attempt = match_claim(match_id=ids[0], worker="w")
    assert attempt is not None
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        version_test_cancel(test=test, user=user)
        # Inside the cancel's transaction the running game is left alone: a recording of it holds
        # its match and waits for the test's row, so taking the match here could deadlock.
        assert Match.objects.get(id=ids[0]).status == "running"
    assert len(callbacks) == 1
    _assert_stopped(Match.objects.get(id=ids[0]), attempt)
    assert set(Match.objects.filter(id__in=ids).values_list("status", flat=True)) == {"cancelled"}


def _challenge(user: Any, make_bot: Any, games: int) -> Any:
    mine, theirs = make_bot(owner=user, name="mine"), make_bot(owner="new", name="theirs")
    return challenge_create(challenger=user, bot_id=mine.id, opponent_id=theirs.id, games=games)


def test_a_challenge_is_cancelled_by_its_challenger_with_its_running_games(
    user: Any, other: Any, make_bot: Any, play: Any
) -> None:
    challenge = _challenge(user, make_bot, games=3)
    first, second, third = Match.objects.filter(challenge_link__challenge=challenge).order_by("challenge_link__number")
    play(first, [1, 2])
    attempt = match_claim(match_id=second.id, worker="w")
    assert attempt is not None
    with pytest.raises(ForbiddenError):
        challenge_cancel(challenge=challenge, user=other)
    assert challenge_cancel(challenge=challenge, user=user) == 2
    _assert_stopped(second, attempt)
    assert Match.objects.get(id=third.id).status == "cancelled"
    assert Match.objects.get(id=first.id).status == "finished"  # played games keep their results
    with pytest.raises(ConflictError):
        challenge_cancel(challenge=challenge, user=user)


def test_the_api_cancels_a_challenge(user: Any, make_bot: Any) -> None:
    challenge = _challenge(user, make_bot, games=2)
    running = Match.objects.filter(challenge_link__challenge=challenge).order_by("id").first()
    attempt = match_claim(match_id=running.id, worker="w")
    assert attempt is not None
    client = APIClient()
    stranger = get_user_model().objects.create_user("stranger")
    client.force_authenticate(stranger)
    assert client.post(f"/api/challenges/{challenge.id}/cancel/").status_code == 404  # not theirs to see
    client.force_authenticate(user)
    answer = client.post(f"/api/challenges/{challenge.id}/cancel/")
    assert answer.status_code == 200, answer.content
    assert answer.json()["status"] == "finished" and answer.json()["progress"]["cancelled"] == 2
    _assert_stopped(running, attempt)
    again = client.post(f"/api/challenges/{challenge.id}/cancel/")
    assert again.status_code == 409 and again.json()["error"]["code"] == "not_cancellable", again.content
