"""Schedules in the browser, for staff only: create (the next runs shown before saving), list, pause, resume."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tournaments.competitions.models import TournamentSchedule

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("games")]

FORM = {"name": "Weekday mornings", "game": "gamesup", "kind": "cron", "cron": "30 6 * * 1-5", "format": "single",
        "games_per_pairing": "2", "at_time": "", "weekday": ""}  # fmt: skip


def test_staff_preview_a_cron_schedule_save_and_pause_it(staff: Any, user: Any) -> None:
    visitor = Client()
    visitor.force_login(user)
    assert visitor.get("/schedules/").status_code == 302  # to the login: staff only
    assert visitor.post("/schedules/new/", FORM).status_code == 302 and not TournamentSchedule.objects.exists()

    browser = Client()
    browser.force_login(staff)
    preview = browser.post("/schedules/new/", {**FORM, "preview": "1"}).content.decode()
    runs = preview.split('<ol id="next-runs">')[1].split("</ol>")[0].split("<li>")[1:]
    assert len(runs) == 5 and all("06:30" in r and r[:3] in {"Mon", "Tue", "Wed", "Thu", "Fri"} for r in runs)
    assert not TournamentSchedule.objects.exists()  # a preview saves nothing
    bad = browser.post("/schedules/new/", {**FORM, "cron": "61 * * * *", "preview": "1"})
    assert bad.status_code == 400 and "Invalid cron expression" in bad.content.decode()

    assert browser.post("/schedules/new/", {**FORM, "save": "1"}).status_code == 302
    schedule = TournamentSchedule.objects.get()
    assert schedule.cron == "30 6 * * 1-5" and schedule.next_run is not None and schedule.owner == staff
    page = browser.get("/schedules/").content.decode()
    assert f"{schedule.next_run:%Y-%m-%d %H:%M}" in page and "none yet" in page
    browser.post(f"/schedules/{schedule.id}/toggle/")
    schedule.refresh_from_db()
    assert not schedule.enabled and schedule.next_run is None
    assert ">paused<" in browser.get("/schedules/").content.decode()
