"""The bot author's pages: my bots, uploading a bot or a new version, visibility, deactivation.

Every write is a call to tournaments.bots.services, with the API's checks
and messages; a refusal is shown on the form it came from.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from tournaments.api.throttles import ArbiterScopedThrottle
from tournaments.bots.models import Bot
from tournaments.bots.selectors import bot_get, bot_list
from tournaments.bots.services import bot_create, bot_deactivate, bot_update, bot_version_create
from tournaments.errors import ServiceError
from tournaments.games.selectors import game_list
from tournaments.ratings.selectors import bots_headline_ratings
from tournaments.web.forms import BotCreateForm, BotSettingsForm, UploadForm, errors_into


def _package(upload: Any) -> tuple[bytes, str]:
    """The uploaded file's bytes, read no further than one byte past the limit (the service refuses it then)."""
    return upload.read(settings.ARBITER_MAX_PACKAGE_BYTES + 1), upload.name or "package"


class _UploadScope:
    """Stands in for the API's upload views: pages and API share one upload budget per user."""

    throttle_scope = "uploads"


def _upload_refused(request: HttpRequest, form: Any) -> bool:
    """Count this upload against the user's budget (the API's throttle); past it, say when to retry."""
    throttle = ArbiterScopedThrottle()
    if throttle.allow_request(request, _UploadScope()):  # type: ignore[arg-type]
        return False
    wait = throttle.wait()
    form.add_error(None, f"Too many uploads; try again in {int(wait or 1)} s.")
    return True


def _own_bot(request: HttpRequest, bot_id: int) -> Bot:
    bot = bot_get(user=request.user, bot_id=bot_id)
    if bot is None:
        raise Http404
    return bot


@login_required
def my_bots(request: HttpRequest) -> HttpResponse:
    """The signed-in user's bots, every game, with the newest version number, Elo and state."""
    bots = list(bot_list(user=request.user, mine=True))
    ratings = bots_headline_ratings(bot_ids=[b.id for b in bots])
    rows = [{"bot": b, "rating": ratings.get(b.id)} for b in bots]
    return render(request, "web/my_bots.html", {"rows": rows})


@login_required
def bot_new(request: HttpRequest) -> HttpResponse:
    """Upload a new bot (its version 1)."""
    games = [(g.id, g.name) for g in game_list()]
    form = BotCreateForm(request.POST or None, request.FILES or None, games=games, initial=request.GET.dict())
    if request.method == "POST" and form.is_valid() and not _upload_refused(request, form):
        data = form.cleaned_data
        package, filename = _package(data["package"])
        try:
            version = bot_create(
                owner=request.user,
                game_id=data["game"],
                name=data["name"],
                visibility=data["visibility"],
                description=data["description"],
                notes=data["notes"],
                package=package,
                filename=filename,
            )
        except ServiceError as exc:
            errors_into(form, exc)
        else:
            messages.success(request, f"Uploaded {data['name']} v1 ({version.kind}).")
            return redirect("web-bot", bot_id=version.bot_id)
    return render(request, "web/bot_new.html", {"form": form}, status=400 if form.errors else 200)


@login_required
def bot_version_new(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Upload a new version of one of the user's bots."""
    bot = _own_bot(request, bot_id)
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid() and not _upload_refused(request, form):
        package, filename = _package(form.cleaned_data["package"])
        try:
            version = bot_version_create(
                bot=bot, user=request.user, package=package, filename=filename, notes=form.cleaned_data["notes"]
            )
        except ServiceError as exc:
            errors_into(form, exc)
        else:
            messages.success(request, f"Uploaded {bot.name} v{version.number}; it plays from now on.")
            return redirect("web-bot", bot_id=bot.id)
    return render(request, "web/bot_version_new.html", {"bot": bot, "form": form}, status=400 if form.errors else 200)


@login_required
@require_POST
def bot_settings(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Change a bot's visibility, description, and whether others' challenges wait for the owner's answer."""
    bot = _own_bot(request, bot_id)
    form = BotSettingsForm(request.POST)
    try:
        if not form.is_valid():
            raise ServiceError("Visibility is 'public' or 'private'.")
        bot_update(bot=bot, user=request.user, **form.cleaned_data)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        asked = "wait for your answer" if bot.challenges_ask else "play at once"
        messages.success(
            request, f"{bot.name} is now {bot.get_visibility_display().lower()}; others' challenges {asked}."
        )
    return redirect("web-bot", bot_id=bot.id)


@login_required
@require_POST
def bot_deactivate_view(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Withdraw a bot from new tournaments (its history stays)."""
    bot = _own_bot(request, bot_id)
    try:
        bot_deactivate(bot=bot, user=request.user)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"{bot.name} is deactivated: it enters no new tournaments.")
    return redirect("web-bot", bot_id=bot.id)
