"""Challenges in the browser: send one, see those you sent and those against your bots with the score
from your side, accept or decline those waiting for your answer.  Writes go through
competitions.services.challenges, reads through its selectors.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from tournaments.bots.selectors import bot_list
from tournaments.competitions.models import Challenge
from tournaments.competitions.selectors.challenges import (
    challenge_get,
    challenge_list,
    challenge_matches,
    challenge_score,
    challenge_status,
)
from tournaments.competitions.services.challenges import challenge_answer, challenge_create
from tournaments.errors import ServiceError
from tournaments.web.forms import ChallengeForm, errors_into

LISTED = 20  # challenges listed per side


def _row(challenge: Challenge, user: Any) -> dict[str, Any]:
    matches = challenge_matches(challenge=challenge)
    return {
        "challenge": challenge,
        "status": challenge_status(challenge),
        "score": challenge_score(challenge=challenge, matches=matches, user=user),
        "matches": matches,
    }


@login_required
def challenges_page(request: HttpRequest) -> HttpResponse:
    """The challenges you sent and those against your bots, newest first, each scored from your side."""
    user = request.user
    visible = challenge_list(user=user)
    outgoing = [_row(c, user) for c in visible.filter(challenger_id=user.id)[:LISTED]]
    incoming = [
        _row(c, user)
        for c in visible.filter(opponent_version__bot__owner_id=user.id).exclude(challenger_id=user.id)[:LISTED]
    ]
    return render(request, "web/challenges.html", {"outgoing": outgoing, "incoming": incoming})


@login_required
def challenge_new(request: HttpRequest) -> HttpResponse:
    """Challenge a bot (its id, or ?opponent= from its page) with one of yours."""
    mine = [(b.id, f"{b.name} ({b.game_id})") for b in bot_list(user=request.user, mine=True) if b.active]
    form = ChallengeForm(request.POST or None, bots=mine, initial=request.GET.dict())
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            challenge = challenge_create(
                challenger=request.user, bot_id=data["bot"], opponent_id=data["opponent"], games=data["games"]
            )
        except ServiceError as exc:
            errors_into(form, exc)
        else:
            waiting = challenge.answer == Challenge.Answer.PENDING
            messages.success(
                request,
                "Sent: it plays once the opponent's owner accepts." if waiting else "Sent: its games are queued.",
            )
            return redirect("web-challenges")
    return render(request, "web/challenge_new.html", {"form": form}, status=400 if form.errors else 200)


@login_required
@require_POST
def challenge_answer_view(request: HttpRequest, challenge_id: int, answer: str) -> HttpResponse:
    """Accept or decline a challenge against one of your bots."""
    challenge = challenge_get(user=request.user, challenge_id=challenge_id)
    if challenge is None or answer not in ("accept", "decline"):
        raise Http404
    try:
        challenge_answer(challenge=challenge, user=request.user, accept=answer == "accept")
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "Accepted: its games are queued." if answer == "accept" else "Declined.")
    return redirect("web-challenges")
