"""A tournament's page for organisers: a draft says when it starts and who enters; staff re-queue errored matches."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.test import Client

from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.dbclock import db_clock
from tournaments.matches.claim import match_claim
from tournaments.matches.models import Match
from tournaments.matches.record import match_record_error


def _browser(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_draft_shows_its_start_and_entry_rule_and_staff_requeue_errored_matches(
    user: Any, staff: Any, make_bot: Any
) -> None:
    bots = [make_bot(owner="new") for _ in range(3)]
    start = db_clock() + timedelta(hours=2)
    draft = tournament_create(owner=user, game_id="gamesup", name="later", bot_ids=[b.id for b in bots], start_at=start)
    rule = Client().get(f"/tournaments/{draft.id}/").content.decode().split('id="draft-rule">')[1].split("</span>")[0]
    assert f"{start:%Y-%m-%d %H:%M} UTC" in rule and "versions they had when the draft was made" in rule

    tournament = tournament_start(tournament=draft, user=user)
    broken = Match.objects.filter(tournament=tournament).order_by("id").first()
    assert broken is not None
    attempt = match_claim(match_id=broken.id, worker="w")
    assert attempt is not None
    assert match_record_error(match_id=broken.id, attempt=attempt, reason="disk full", retry=False) == "errored"

    url = f"/tournaments/{tournament.id}/"
    assert 'id="requeue-errored"' not in _browser(user).get(url).content.decode()  # staff only
    _browser(user).post(f"{url}requeue/")
    assert Match.objects.get(id=broken.id).status == "errored"
    page = _browser(staff).get(url).content.decode()
    assert "1 errored" in page and 'id="requeue-errored"' in page
    _browser(staff).post(f"{url}requeue/")
    assert Match.objects.get(id=broken.id).status == "queued"
