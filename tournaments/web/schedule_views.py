"""Recurring schedules in the browser, for staff (who alone may make them): list, create with the next
runs shown before saving, pause and resume.  Writes go through competitions.services.schedules.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from tournaments.competitions.models import TournamentSchedule
from tournaments.competitions.selectors.schedules import EDITIONS_SHOWN, schedule_get, schedule_list
from tournaments.competitions.services.schedules import schedule_next_runs, schedule_save
from tournaments.dbclock import db_clock
from tournaments.errors import ServiceError
from tournaments.games.selectors import game_list
from tournaments.web.forms import ScheduleForm, errors_into

PREVIEW_RUNS = 5  # next runs shown on the form before saving


@staff_member_required(login_url="web-login")
def schedules_page(request: HttpRequest) -> HttpResponse:
    """Every schedule with its next run, state and latest editions."""
    schedules = list(schedule_list())
    rows = [{"schedule": s, "editions": list(s.editions.all())[:EDITIONS_SHOWN]} for s in schedules]
    return render(request, "web/schedules.html", {"rows": rows})


@staff_member_required(login_url="web-login")
def schedule_new(request: HttpRequest) -> HttpResponse:
    """Create a schedule; "Show the next runs" computes them from the form without saving."""
    form = ScheduleForm(request.POST or None, games=[(g.id, g.name) for g in game_list()])
    runs = []
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        schedule = TournamentSchedule(
            owner=request.user,  # type: ignore[misc]  # staff_member_required: signed in
            name=data["name"],
            game_id=data["game"],
            kind=data["kind"],
            at_time=data["at_time"],
            weekday=data["weekday"],
            cron=data["cron"],
            format=data["format"],
            games_per_pairing=data["games_per_pairing"],
            seats=0,  # the game's default, filled in by the service
        )
        try:
            if "preview" in request.POST:
                runs = schedule_next_runs(schedule=schedule, after=db_clock(), count=PREVIEW_RUNS)
            else:
                schedule_save(schedule=schedule)
                messages.success(
                    request, f"Scheduled {schedule.name}; next run {schedule.next_run:%Y-%m-%d %H:%M} UTC."
                )
                return redirect("web-schedules")
        except ServiceError as exc:
            errors_into(form, exc)
    status = 400 if form.errors else 200
    return render(request, "web/schedule_new.html", {"form": form, "runs": runs}, status=status)


@staff_member_required(login_url="web-login")
@require_POST
def schedule_toggle(request: HttpRequest, schedule_id: int) -> HttpResponse:
    """Pause a schedule (no next run) or resume it (its next run computed from now)."""
    schedule = schedule_get(schedule_id=schedule_id)
    if schedule is None:
        raise Http404
    schedule.enabled = not schedule.enabled
    try:
        schedule_save(schedule=schedule)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"{schedule.name} is {'resumed' if schedule.enabled else 'paused'}.")
    return redirect("web-schedules")
