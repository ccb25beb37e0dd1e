"""The exactly-once machinery in-process (SQLite): leases, late results, the dispatcher, the rebuild command.

The process tests next to this file show it under real faults; these pin
down each rule on its own, including that the checks the process tests rely
on (``ratings_rebuild --check``) do fail when something is counted wrong.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.test.utils import override_settings

from tests.service.conftest import _games, make_bot, outcome_for, play, user  # noqa: F401 - fixtures
from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.dbclock import db_clock
from tournaments.matches import recovery as dispatch
from tournaments.matches.claim import match_claim
from tournaments.matches.marks import recovery_marks, reruns_by_cause
from tournaments.matches.models import MatchSeat
from tournaments.matches.record import match_record_error, match_record_result
from tournaments.matches.recovery import matches_expire_leases
from tournaments.ratings.models import Rating, RatingChange
from tournaments.ratings.rebuild import ratings_differences


@pytest.fixture
def round_robin(user: Any, make_bot: Any) -> Tournament:  # noqa: F811
    bots = [make_bot(owner="new") for _ in range(3)]
    tournament = tournament_create(
        owner=user, game_id="gamesup", name="t", bot_ids=[b.id for b in bots], games_per_pairing=2
    )
    return tournament_start(tournament=tournament, user=user)


def _later(seconds: float) -> Any:
    return db_clock() + timedelta(seconds=seconds)


@override_settings(ARBITER_LEASE_S=30, ARBITER_MATCH_MAX_ATTEMPTS=2)
def test_expired_lease_requeues_then_errors_without_touching_ratings(round_robin: Tournament) -> None:
    match = round_robin.matches.order_by("index").first()
    assert match_claim(match_id=match.id, worker="h1@host:1") == 1
    assert matches_expire_leases(now=_later(29)) == 0  # still within its lease
    assert matches_expire_leases(now=_later(31)) == 1
    match.refresh_from_db()
    assert (match.status, match.attempt) == ("queued", 1)
    assert "lease expired (worker h1@host:1" in match.error_reason
    assert match_claim(match_id=match.id, worker="h2@host:2") == 2
    assert matches_expire_leases(now=_later(31)) == 1
    match.refresh_from_db()
    assert match.status == "errored" and "lease expired (worker h2@host:2" in match.error_reason
    assert match.finished_at is not None
    # An infrastructure error: no forfeit on any seat, no rating anywhere.
    assert set(MatchSeat.objects.filter(match=match).values_list("status", flat=True)) == {""}
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


@override_settings(ARBITER_LEASE_S=30)
def test_late_result_of_a_lost_lease_is_dropped_and_logged(
    round_robin: Tournament, caplog: pytest.LogCaptureFixture
) -> None:
    match = round_robin.matches.order_by("index").first()
    old = match_claim(match_id=match.id, worker="slow@host:1")
    matches_expire_leases(now=_later(31))
    new = match_claim(match_id=match.id, worker="fast@host:2")
    assert (old, new) == (1, 2)
    assert match_record_result(match_id=match.id, attempt=new, record=outcome_for(match, [1, 2])) is True
    with caplog.at_level(logging.WARNING, logger="tournaments"):
        assert match_record_result(match_id=match.id, attempt=old, record=outcome_for(match, [2, 1])) is False
    assert f"dropping result of match {match.id} attempt 1: it is finished under attempt 2" in caplog.text
    assert RatingChange.objects.filter(match=match).count() == 2
    assert sorted(MatchSeat.objects.filter(match=match).values_list("rank", flat=True)) == [1, 2]
    assert MatchSeat.objects.get(match=match, seat=0).rank == 1  # the current attempt's result stands


@override_settings(ARBITER_LEASE_S=30, ARBITER_SWEEP_EVERY_S=5)
def test_sweeper_back_from_an_outage_waits_a_lease_before_ending_anything(round_robin: Tournament) -> None:
    match = round_robin.matches.order_by("index").first()
    assert match_claim(match_id=match.id, worker="h1@host:1") == 1
    assert matches_expire_leases(now=_later(1)) == 0
    # No sweep for a minute (the database, or beat, was down): the silent worker is not to blame yet.
    assert matches_expire_leases(now=_later(61)) == 0
    for seconds in (70, 80, 90):  # sweeping every few seconds again
        assert matches_expire_leases(now=_later(seconds)) == 0
    assert matches_expire_leases(now=_later(92)) == 1  # a whole lease since the sweeper came back
    assert reruns_by_cause()["worker_lost"] == 1
    assert recovery_marks()["expired"][0] == 1


@override_settings(ARBITER_MATCH_MAX_ATTEMPTS=1)
def test_attempt_of_a_broken_worker_is_given_back(round_robin: Tournament) -> None:
    match = round_robin.matches.order_by("index").first()
    for _ in range(3):  # more than the match's attempts: none of them counts
        assert match_claim(match_id=match.id, worker="broken@host:1") == 1
        assert match_record_error(match_id=match.id, attempt=1, reason="no space", charged=False) == "queued"
    match.refresh_from_db()
    assert (match.status, match.attempt) == ("queued", 0)
    assert match_claim(match_id=match.id, worker="w@host:2") == 1
    assert match_record_error(match_id=match.id, attempt=1, reason="bad luck") == "errored"  # counted


def _sent(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    from tournaments.matches.tasks import run_next

    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(run_next, "apply_async", lambda **kw: sent.append(kw))
    return sent


def test_dispatcher_sends_what_the_broker_lost_and_no_more(
    round_robin: Tournament, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = _sent(monkeypatch)
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    queued = round_robin.matches.count()
    monkeypatch.setattr(dispatch, "queue_depths", lambda queues: {queue: queued})
    assert dispatch.matches_dispatch() == 0 and sent == []  # one message per queued match: nothing missing
    monkeypatch.setattr(dispatch, "queue_depths", lambda queues: {queue: 0})  # the broker lost everything
    ids = list(round_robin.matches.order_by("index").values_list("id", flat=True))
    match_claim(match_id=ids[0], worker="w")  # running: its worker has it, it needs no message
    assert dispatch.matches_dispatch() == queued - 1 == len(sent)
    monkeypatch.setattr(dispatch, "queue_depths", lambda queues: {queue: queued - 1})  # they arrived
    assert dispatch.matches_dispatch() == 0
    monkeypatch.setattr(dispatch, "queue_depths", lambda queues: None)  # the broker is down: nothing to send to
    assert dispatch.matches_dispatch() == 0
    assert dispatch.matches_dispatch(limit=2) == 0


def test_dispatcher_sends_in_batches(round_robin: Tournament, monkeypatch: pytest.MonkeyPatch) -> None:
    sent = _sent(monkeypatch)
    monkeypatch.setattr(dispatch, "queue_depths", lambda queues: {settings.CELERY_TASK_DEFAULT_QUEUE: 0})
    assert dispatch.matches_dispatch(limit=2) == 2 == len(sent)


def _play_all(tournament: Tournament, play: Any, reverse: bool) -> None:  # noqa: F811
    matches = list(tournament.matches.order_by("-index" if reverse else "index"))
    for i, match in enumerate(matches):
        play(match, [[1, 2], [2, 1], [1, 1]][i % 3])


def test_rebuild_replays_in_finish_order(round_robin: Tournament, play: Any) -> None:  # noqa: F811
    # Recorded in the reverse of schedule (and id) order: only finish order reproduces the live numbers.
    _play_all(round_robin, play, reverse=True)
    differences, replay, compared = ratings_differences()
    assert (differences, replay.matches, compared) == ([], 6, 3)
    out = StringIO()
    call_command("ratings_rebuild", "--check", stdout=out)
    assert "6 match(es) replayed, 3 rating(s) compared, 0 differ" in out.getvalue()


def test_rebuild_check_reports_and_apply_repairs(round_robin: Tournament, play: Any) -> None:  # noqa: F811
    _play_all(round_robin, play, reverse=False)
    good = {r.id: (r.elo, r.games, r.wins, r.draws, r.losses) for r in Rating.objects.all()}
    changes = sorted(RatingChange.objects.values_list("rating_id", "match_id", "before", "after", "delta", "k"))
    # A match counted twice for one bot, as a broken worker might have done it.
    rating = Rating.objects.order_by("id").first()
    Rating.objects.filter(id=rating.id).update(elo=rating.elo + 12.5, games=rating.games + 1, wins=rating.wins + 1)
    RatingChange.objects.filter(rating=rating).order_by("-id").first().delete()
    out = StringIO()
    with pytest.raises(CommandError) as failure:
        call_command("ratings_rebuild", "--check", stdout=out)
    assert failure.value.returncode == 1
    report = out.getvalue()
    assert f"DIFF {round_robin.rating_pool} version {rating.bot_version_id} " in report
    assert f"live elo {rating.elo + 12.5:.6f} games {rating.games + 1}" in report
    assert f"rebuilt elo {rating.elo:.6f} games {rating.games}" in report
    assert "1 differ" in report

    out = StringIO()
    call_command("ratings_rebuild", "--apply", stdout=out)
    assert "1 had differed" in out.getvalue()
    assert {r.id: (r.elo, r.games, r.wins, r.draws, r.losses) for r in Rating.objects.all()} == good
    assert sorted(RatingChange.objects.values_list("rating_id", "match_id", "before", "after", "delta", "k")) == changes
    call_command("ratings_rebuild", "--check", stdout=StringIO())
