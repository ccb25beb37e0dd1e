"""Schedules over the API, scheduled tournaments over the API, and the admin pages for both and for ladders."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tournaments.competitions.models import Ladder, Tournament, TournamentSchedule
from tournaments.competitions.services.schedules import schedules_run_due, tournaments_start_due
from tournaments.dbclock import db_clock
from tournaments.ratings.pools import pool_key_read

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("games")]


def _api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_schedules_api(user: Any, staff: Any, make_bot: Any) -> None:
    body = {"name": "Nightly gamesup", "game": "gamesup", "kind": "daily", "at_time": "03:00", "format": "double"}
    assert _api(user).post("/api/schedules/", body, format="json").status_code == 403
    assert APIClient().post("/api/schedules/", body, format="json").status_code == 401

    created = _api(staff).post("/api/schedules/", body, format="json")
    assert created.status_code == 201, created.content
    data = created.json()
    assert data["owner"] == "root" and data["seats"] == 2 and data["enabled"] and data["editions"] == []
    next_run = data["next_run"]
    assert next_run.endswith("03:00:00Z")

    bad = _api(staff).post("/api/schedules/", {**body, "kind": "cron", "cron": "every night"}, format="json")
    assert bad.status_code == 400 and "cron" in bad.json()["error"]["fields"]

    sid = data["id"]
    changed = _api(staff).patch(f"/api/schedules/{sid}/", {"kind": "weekly", "weekday": 2}, format="json")
    assert changed.status_code == 200, changed.content
    assert changed.json()["kind"] == "weekly" and changed.json()["name"] == "Nightly gamesup"
    schedule = TournamentSchedule.objects.get(id=sid)
    assert schedule.next_run.weekday() == 2 and schedule.format == "double"
    assert _api(user).patch(f"/api/schedules/{sid}/", {"enabled": False}, format="json").status_code == 403

    # Anyone reads them, editions included.
    make_bot(), make_bot()
    edition = schedules_run_due(now=schedule.next_run)[0]
    listed = APIClient().get("/api/schedules/").json()
    assert [s["id"] for s in listed["results"]] == [sid]
    assert APIClient().get(f"/api/schedules/{sid}/").json()["editions"] == [edition]
    assert APIClient().get("/api/schedules/999999/").status_code == 404


def test_tournament_with_start_time_over_the_api(user: Any, make_bot: Any) -> None:
    make_bot(), make_bot(), make_bot()
    start_at = db_clock() + timedelta(minutes=5)
    response = _api(user).post(
        "/api/tournaments/",
        {"game": "gamesup", "name": "later", "all_active": True, "start_at": start_at.isoformat()},
        format="json",
    )
    assert response.status_code == 201, response.content
    data = response.json()
    assert data["status"] == "draft" and data["all_active"] and data["participants"] == []
    assert tournaments_start_due() == []
    assert tournaments_start_due(now=start_at) == [data["id"]]
    assert len(APIClient().get(f"/api/tournaments/{data['id']}/").json()["participants"]) == 3
    # A list of bots is still needed without all_active.
    assert _api(user).post("/api/tournaments/", {"game": "gamesup"}, format="json").status_code == 400


def test_admin_pages(staff: Any, user: Any, make_bot: Any) -> None:
    from tournaments.competitions.services.tournaments import tournament_create

    staff.is_superuser = True
    staff.save()
    browser = Client()
    browser.force_login(staff)
    bots = [make_bot() for _ in range(2)]
    upcoming = tournament_create(
        owner=user,
        game_id="gamesup",
        name="soon",
        bot_ids=[b.id for b in bots],
        start_at=db_clock() + timedelta(hours=1),
    )
    tournament_create(owner=user, game_id="gamesup", name="plain", bot_ids=[b.id for b in bots])

    page = browser.get("/admin/competitions/tournament/?when=upcoming")
    assert page.status_code == 200
    assert b"soon" in page.content and b"plain" not in page.content
    assert browser.get(f"/admin/competitions/tournament/{upcoming.id}/change/").status_code == 200

    # A schedule made in the admin gets its next run; a bad one is refused on the form.
    form = {
        "name": "Weekly gamesup", "game": "gamesup", "options": "{}", "seats": "2", "format": "single",
        "games_per_pairing": "2", "move_ms": "1000", "game_ms": "60000", "startup_ms": "10000", "rated": "on",
        "kind": "weekly", "at_time": "20:00", "weekday": "4", "cron": "", "enabled": "on",
    }  # fmt: skip
    refused = browser.post("/admin/competitions/tournamentschedule/add/", {**form, "kind": "cron", "cron": "nope"})
    assert refused.status_code == 200 and not TournamentSchedule.objects.exists()
    saved = browser.post("/admin/competitions/tournamentschedule/add/", form)
    assert saved.status_code == 302, saved.content[:2000]
    schedule = TournamentSchedule.objects.get()
    assert schedule.owner == staff and schedule.next_run.weekday() == 4 and schedule.next_run.hour == 20
    assert browser.get("/admin/competitions/tournamentschedule/").status_code == 200
    schedules_run_due(now=schedule.next_run)
    assert browser.get("/admin/competitions/tournament/?when=recurring").content.count(b"Weekly gamesup") >= 1
    assert browser.get(f"/admin/competitions/tournamentschedule/{schedule.id}/change/").status_code == 200

    # Ladders: the pool is derived; a second ladder for the same pool is refused.
    ladder_form = {"game": "gamesup", "options": "{}", "seats": "2", "move_ms": "1000", "game_ms": "60000",
                   "startup_ms": "10000", "queued_target": "2", "enabled": "on"}  # fmt: skip
    assert browser.post("/admin/competitions/ladder/add/", ladder_form).status_code == 302
    ladder = Ladder.objects.get()
    # The game's public pool: the one a tournament of the same game and options is rated in, without its organiser.
    assert ladder.pool == pool_key_read(Tournament.objects.get(name="plain").rating_pool).base
    assert browser.post("/admin/competitions/ladder/add/", ladder_form).status_code == 200
    assert Ladder.objects.count() == 1
    assert (
        browser.post(f"/admin/competitions/ladder/{ladder.id}/change/", {**ladder_form, "enabled": ""}).status_code
        == 302
    )
    ladder.refresh_from_db()
    assert not ladder.enabled
    assert browser.get("/admin/matches/match/?kind=ladder").status_code == 200
