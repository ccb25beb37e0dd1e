"""The Celery tasks called in-process: a real match in the sandbox, package and infrastructure errors."""

from __future__ import annotations

import hashlib
import os
from typing import Any

import pytest

from tests.service.conftest import duel_started
from tournaments.bots.models import BotVersion
from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches import tasks
from tournaments.matches.models import Match
from tournaments.ratings.models import Rating

needs_sandbox = pytest.mark.sandbox


@pytest.fixture
def duel(user: Any, make_bot: Any) -> Tournament:
    return duel_started(owner=user, bots=[make_bot(owner="new"), make_bot(owner="new")], games=2)


@needs_sandbox
def test_run_next_plays_and_records_the_next_match(duel: Tournament) -> None:
    match = duel.matches.order_by("index").first()
    assert tasks.run_next() == "finished"
    match.refresh_from_db()
    assert match.status == "finished" and match.attempt == 1 and match.moves and match.result_reason
    assert sorted(match.match_seats.values_list("rank", flat=True)) in ([1, 1], [1, 2])
    # The pool was free: the match's rating changes committed with its result.
    assert not match.rating_pending
    assert Rating.objects.filter(pool=duel.rating_pool).count() == 2
    # The next message plays the next match; one more finds nothing to do.
    assert tasks.run_next() == "finished"
    assert tasks.run_next() == "nothing queued"


def test_bad_package_errors_with_a_reason(duel: Tournament) -> None:
    match = duel.matches.order_by("index").first()
    version = match.match_seats.get(seat=0).bot_version
    # An archive that cannot be unpacked: the match cannot be played, and re-running will not help.
    garbage = b"not a zip " + os.urandom(8)
    BotVersion.objects.filter(id=version.id).update(
        package=garbage, filename="bot.zip", checksum=hashlib.sha256(garbage).hexdigest()
    )
    assert tasks.run_next() == "errored"
    match.refresh_from_db()
    assert match.status == "errored" and "is invalid" in match.error_reason
    assert not Rating.objects.exists()


def test_tampered_package_is_refused(duel: Tournament) -> None:
    match = duel.matches.order_by("index").first()
    version = match.match_seats.get(seat=0).bot_version
    # Bytes that no longer match the checksum recorded at upload.
    BotVersion.objects.filter(id=version.id).update(package=b"print('hi')\n", checksum=os.urandom(32).hex())
    assert tasks.run_next() == "errored"
    match.refresh_from_db()
    assert "checksum" in match.error_reason


def test_infrastructure_error_requeues(duel: Tournament, monkeypatch: pytest.MonkeyPatch) -> None:
    from tournaments.matches import runner
    from workers.sandbox.start import InfrastructureError

    def broken(*args: Any, **kwargs: Any) -> None:
        raise InfrastructureError("no free sandbox slot")

    monkeypatch.setattr(runner, "play_match", broken)
    match = duel.matches.order_by("index").first()
    assert tasks.run_next() == "queued"
    match.refresh_from_db()
    assert (match.status, match.attempt) == ("queued", 1)
    assert "no free sandbox slot" in match.error_reason
    assert set(match.match_seats.values_list("status", flat=True)) == {""}  # not a forfeit


def test_starting_sends_one_message_per_match_on_commit(
    user: Any, make_bot: Any, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(tasks.run_next, "apply_async", lambda **kw: sent.append(kw))
    bots = [make_bot() for _ in range(3)]
    tournament = tournament_create(owner=user, game_id="gamesup", name="t", bot_ids=[b.id for b in bots])
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        tournament_start(tournament=tournament, user=user)
    assert sent == []  # nothing before the rows are committed
    for callback in callbacks:
        callback()
    assert len(sent) == Match.objects.filter(tournament=tournament).count() == 6
    assert {kw["queue"] for kw in sent} == {"celery"}


def test_a_broker_down_at_commit_loses_no_match(
    user: Any, make_bot: Any, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    def down(**kwargs: Any) -> None:
        raise OSError("Connection refused")

    monkeypatch.setattr(tasks.run_next, "apply_async", down)
    bots = [make_bot() for _ in range(2)]
    tournament = tournament_create(owner=user, game_id="gamesup", name="t", bot_ids=[b.id for b in bots])
    with django_capture_on_commit_callbacks(execute=True):
        started = tournament_start(tournament=tournament, user=user)  # no exception: the work is done
    assert started.status == "running" and Match.objects.filter(tournament=tournament, status="queued").count() == 2


@needs_sandbox
def test_two_workers_unpacking_one_package_share_it(
    duel: Tournament, tmp_path: Any, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    import errno

    from workers.packages import archive

    settings.ARBITER_PACKAGE_CACHE = tmp_path / "cache"
    real = archive.unpack_package

    def racing(data: bytes, filename: str, dest: Any) -> Any:
        real(data, filename, dest)  # the other worker's copy lands first...
        raise FileExistsError(errno.EEXIST, "already there")  # ...so ours finds it taken

    monkeypatch.setattr(archive, "unpack_package", racing)
    assert tasks.run_next() == "finished"
