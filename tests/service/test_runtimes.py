"""Capabilities: a worker leaves a match whose bots need a runtime it lacks to a worker that has it."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import pytest

from tournaments.bots.services import bot_create
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.claim import match_claim_next
from tournaments.matches.models import Match
from workers.sandbox.runtimes import runtime_of, runtimes_missing

pytestmark = pytest.mark.django_db

MISSING = "arbiter-test-no-such-runtime"


def _package(command: list[str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.json", json.dumps({"command": command}))
        archive.writestr("main.py", "")
    return buffer.getvalue()


def _exotic(user: Any) -> Any:
    """A bot whose command needs a runtime no machine has."""
    package = _package([MISSING, "main.py"])
    return bot_create(owner=user, game_id="gamesup", name="exotic", package=package, filename="e.zip").bot


def _match_between(user: Any, *bots: Any) -> Match:
    tournament = tournament_create(
        owner=user, game_id="gamesup", name="t", bot_ids=[b.id for b in bots], games_per_pairing=1
    )
    tournament_start(tournament=tournament, user=user)
    return Match.objects.get(tournament=tournament)


def test_runtime_of_a_command() -> None:
    assert runtime_of(["python3", "main.py"]) == "python3"
    assert runtime_of(["./bot"]) is None  # the package's own program
    assert runtimes_missing([["python3", "x.py"], ["./bot"], [MISSING]]) == {MISSING}


def test_worker_without_the_runtime_does_not_claim(user: Any, make_bot: Any) -> None:
    exotic = _exotic(user)
    left = _match_between(user, exotic, make_bot())
    assert match_claim_next(worker="w") is None
    left.refresh_from_db()
    assert left.status == Match.Status.QUEUED and left.attempt == 0
    # Work it can do is still claimed, even queued behind the match it cannot.
    runnable = _match_between(user, make_bot(), make_bot())
    claimed = match_claim_next(worker="w")
    assert claimed is not None and claimed[:2] == (runnable.id, 1)
    left.refresh_from_db()
    assert left.status == Match.Status.QUEUED


def test_a_match_left_for_a_runtime_says_so_and_ends_after_its_wait(
    user: Any, make_bot: Any, settings: Any, client: Any
) -> None:
    from datetime import timedelta

    from tournaments.dbclock import db_clock
    from tournaments.matches.recovery import matches_end_unrunnable
    from tournaments.ops.health import health_report

    exotic = _exotic(user)
    left = _match_between(user, exotic, make_bot())
    assert match_claim_next(worker="w") is None
    left.refresh_from_db()
    assert left.waiting_for == MISSING and left.waiting_since is not None
    _, body = health_report()
    assert body["status"] == "degraded"
    assert body["checks"]["runtimes"]["detail"] == f"RuntimeError: 1 match(es) wait for a worker with {MISSING}"
    assert client.get(f"/api/matches/{left.id}/").json()["waiting_for"] == MISSING

    settings.ARBITER_RUNTIME_WAIT_S = 60
    assert matches_end_unrunnable() == 0  # not waited long enough yet
    assert matches_end_unrunnable(now=db_clock() + timedelta(seconds=61)) == 1
    left.refresh_from_db()
    assert left.status == Match.Status.ERRORED and left.attempt == 0
    assert left.error_reason.startswith(f"no worker with {MISSING} took it in 6")
    assert left.tournament.status == "finished"  # its only match ended: the tournament with it


def test_a_match_left_for_a_runtime_that_a_busy_worker_has_waits_its_turn(
    user: Any, make_bot: Any, settings: Any
) -> None:
    """Another worker ran that runtime within the wait (it exists, it is busy): the match is not ended."""
    from datetime import timedelta

    from tournaments.dbclock import db_clock
    from tournaments.matches.recovery import matches_end_unrunnable

    exotic = _exotic(user)
    left = _match_between(user, exotic, make_bot())
    assert match_claim_next(worker="w") is None  # this worker lacks the runtime
    served = _match_between(user, exotic, make_bot())
    settings.ARBITER_RUNTIME_WAIT_S = 60
    later = db_clock() + timedelta(seconds=61)
    # A worker that has the runtime took another of its matches 30 s before the sweep.
    Match.objects.filter(id=served.id).update(status="running", attempt=1, claimed_at=later - timedelta(seconds=30))
    assert matches_end_unrunnable(now=later) == 0
    left.refresh_from_db()
    assert left.status == Match.Status.QUEUED
    # Nobody ran it for a whole wait: now it ends.
    assert matches_end_unrunnable(now=later + timedelta(seconds=60)) == 1
