"""Builds in the database: requested at upload, one claim at a time, the sweeper's resends and failures,
and which version plays meanwhile.  (The builds themselves run in tests/builds.)"""

from __future__ import annotations

import io
import json
import zipfile
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings as django_settings

from tournaments.bots.builds import build_claim, build_record, builds_resend
from tournaments.bots.models import BotBuild
from tournaments.bots.selectors import version_current, versions_current
from tournaments.bots.services import bot_create, bot_version_create
from tournaments.dbclock import db_clock
from workers.celery_app import app, queue_depths
from workers.packages.build import BuildOutcome

pytestmark = pytest.mark.django_db

GCC = ["gcc", "-o", "bot", "bot.c"]


def _sources() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.json", json.dumps({"command": ["./bot"], "build": GCC}))
        archive.writestr("bot.c", "int main(void) { return 0; }\n")
    return buffer.getvalue()


def test_an_upload_with_a_build_asks_for_one_and_does_not_play_until_built(user: Any) -> None:
    first = bot_create(owner=user, game_id="gamesup", name="c", package=_sources(), filename="c.zip")
    build = BotBuild.objects.get(version=first)
    assert build.status == BotBuild.Status.BUILDING and build.command == GCC and build.attempt == 0
    assert version_current(bot_id=first.bot_id) is None
    assert versions_current(bot_ids=[first.bot_id]) == {}

    attempt, command = build_claim(version_id=first.id, worker="w1") or (0, [])
    assert (attempt, command) == (1, GCC)
    assert build_claim(version_id=first.id, worker="w2") is None  # one builder at a time
    assert build_record(version_id=first.id, attempt=1, outcome=BuildOutcome(True, "", b"built"))
    assert versions_current(bot_ids=[first.bot_id]) == {first.bot_id: first.id}

    # A newer version that fails to build never takes the older one's place.
    second = bot_version_create(bot=first.bot, user=user, package=_sources(), filename="c.zip")
    assert build_claim(version_id=second.id, worker="w1") == (1, GCC)
    assert build_record(version_id=second.id, attempt=1, outcome=BuildOutcome(False, "the build failed"))
    assert version_current(bot_id=first.bot_id) == first
    assert not build_record(version_id=second.id, attempt=1, outcome=BuildOutcome(True, "", b"late"))


def test_a_lost_build_is_sent_again_then_fails_after_its_attempts(user: Any, settings: Any) -> None:
    settings.ARBITER_BUILD_ATTEMPTS = 2
    version = bot_create(owner=user, game_id="gamesup", name="c", package=_sources(), filename="c.zip")
    later = db_clock() + timedelta(seconds=settings.ARBITER_BUILD_SECONDS + settings.ARBITER_LEASE_S + 1)
    assert build_claim(version_id=version.id, worker="w1") is not None
    assert builds_resend() == 0  # its worker still holds it
    assert builds_resend(now=later) == 1  # the worker died: sent again, free to claim
    queue = django_settings.CELERY_TASK_DEFAULT_QUEUE
    assert queue_depths([queue]) == {queue: 1}
    with app.connection_for_write() as connection:  # the message is this test's: leave the broker empty
        connection.default_channel.queue_purge(queue)
    assert build_claim(version_id=version.id, worker="w2") == (2, GCC)
    assert builds_resend(now=later + timedelta(seconds=600)) == 0
    build = BotBuild.objects.get(version=version)
    assert build.status == BotBuild.Status.FAILED
    assert build.log == "the build was started 2 times and its worker stopped each time (last: w2)"
