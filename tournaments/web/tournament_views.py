"""Round robins from the browser: create (with the number of matches shown first), start and cancel.

The form reads the fields; tournaments.competitions.services checks them
exactly as for the API, and a refusal is shown on the form.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from engines import Engine, UnknownEngineError, get_engine
from tournaments.bots.selectors import bot_list
from tournaments.competitions.models import Tournament
from tournaments.competitions.selectors.tournaments import round_robin_match_count, tournament_get
from tournaments.competitions.services.tournaments import tournament_cancel, tournament_create, tournament_start
from tournaments.errors import ServiceError
from tournaments.games.models import Game
from tournaments.games.selectors import game_list
from tournaments.matches.record import matches_requeue_errored
from tournaments.web.forms import TournamentForm, errors_into


def _game_engine(game_id: str) -> tuple[Game, Engine]:
    game = game_list().filter(id=game_id).first()
    if game is None:
        raise Http404
    try:
        return game, get_engine(game.id)
    except UnknownEngineError as exc:
        raise Http404 from exc


def _entrant_choices(user: Any, game_id: str) -> list[tuple[int, str]]:
    """Active bots of the game the user may enter: public ones and the user's own."""
    bots = bot_list(user=user, game_id=game_id)  # annotated with latest_version
    return [
        (b.id, f"{b.name} (v{getattr(b, 'latest_version', '?')}, {b.owner.username})")
        for b in bots
        if b.active and getattr(b, "latest_version", None)
    ]


def _count(game: Game, form: TournamentForm) -> int | None:
    """The number of matches the valid form asks for, or None with the service's reason on the form."""
    data = form.cleaned_data
    try:
        return round_robin_match_count(
            game_id=game.id,
            seats=data["seats"],
            options=form.options(),
            participants=len(data["participants"]),
            format=data["format"],
            games_per_pairing=data["games_per_pairing"],
            rounds=data["rounds"] or 0,
        )
    except ServiceError as exc:
        errors_into(form, exc)
        return None


@login_required
def tournament_new(request: HttpRequest) -> HttpResponse:
    """Pick a game, then fill in the round robin; "Count matches" shows the total without creating."""
    game_id = request.GET.get("game") or request.POST.get("game")
    if not game_id:
        return render(request, "web/tournament_pick_game.html", {"games": list(game_list())})
    game, engine = _game_engine(game_id)
    form = TournamentForm(request.POST or None, engine=engine, bots=_entrant_choices(request.user, game.id))
    count = None
    if request.method == "POST" and form.is_valid():
        count = _count(game, form)
        if count is not None and "create" in request.POST:
            tournament = _create(request, game, form)
            if tournament is not None:
                return redirect("web-tournament", tournament_id=tournament.id)
    return render(
        request,
        "web/tournament_new.html",
        {"game": game, "form": form, "count": count},
        status=400 if form.errors else 200,
    )


def _create(request: HttpRequest, game: Game, form: TournamentForm) -> Any:
    data = form.cleaned_data
    try:
        tournament = tournament_create(
            owner=request.user,
            game_id=game.id,
            name=data["name"],
            bot_ids=[int(i) for i in data["participants"]],
            options=form.options(),
            seats=data["seats"],
            format=data["format"],
            games_per_pairing=data["games_per_pairing"],
            rounds=data["rounds"] or 0,
            seeding=data["seeding"] or Tournament.Seeding.RATING,
            move_ms=data["move_ms"],
            game_ms=data["game_ms"],
            startup_ms=data["startup_ms"],
            rated=data["rated"],
            challenger_id=data["challenger"],
        )
        if data["start"]:
            tournament = tournament_start(tournament=tournament, user=request.user)
    except ServiceError as exc:
        errors_into(form, exc)
        return None
    messages.success(request, f"Created {tournament.name}" + (" and started it." if data["start"] else " (a draft)."))
    return tournament


@login_required
def tournament_count(request: HttpRequest) -> JsonResponse:
    """The number of matches the form's current values would make, for the form's live total."""
    game, engine = _game_engine(request.GET.get("game", ""))
    form = TournamentForm(request.GET, engine=engine, bots=_entrant_choices(request.user, game.id))
    if not form.is_valid():
        return JsonResponse({"matches": None})
    return JsonResponse({"matches": _count(game, form)})


@login_required
@require_POST
def tournament_action(request: HttpRequest, tournament_id: int, action: str) -> HttpResponse:
    """Start a draft or cancel a draft or running round robin, as its owner (or staff); staff re-queue its
    errored matches (each gets one more attempt; a finished tournament runs again until they are done)."""
    tournament = tournament_get(user=request.user, tournament_id=tournament_id)
    if tournament is None:
        raise Http404
    if action == "requeue" and getattr(request.user, "is_staff", False):
        count = matches_requeue_errored(tournament_id=tournament.id)
        messages.success(request, f"Re-queued {count} errored match{'es' if count != 1 else ''}.")
        return redirect("web-tournament", tournament_id=tournament.id)
    act = {"start": tournament_start, "cancel": tournament_cancel}.get(action)
    if act is None:
        raise Http404
    try:
        act(tournament=tournament, user=request.user)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "Started." if action == "start" else "Cancelled: queued matches will not play.")
    return redirect("web-tournament", tournament_id=tournament.id)
