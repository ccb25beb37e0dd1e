"""The tournament list page: every tournament the visitor may see, a page at a time, filtered.

Organisers look here for tournaments with errored matches (the service failed
them): each row counts them, and a staff member follows the count to the
tournament's page, where "Re-queue N errored" gives each one more attempt.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from tournaments.competitions.models import Tournament
from tournaments.competitions.selectors.tournaments import tournament_list
from tournaments.games.selectors import game_list

PAGE_SIZE = 50
ERRORED_CHOICES = [("", "Any"), ("yes", "With errored matches"), ("no", "Without errored matches")]


class TournamentFilterForm(forms.Form):
    """The list's filters, read from the query string; a value outside the choices is an error on the page."""

    game = forms.ChoiceField(required=False)
    status = forms.ChoiceField(required=False, choices=[("", "Any"), *Tournament.Status.choices])
    errored = forms.ChoiceField(required=False, choices=ERRORED_CHOICES, label="Errored matches")

    def __init__(self, *args: Any, games: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [("", "Any"), *games]  # type: ignore[attr-defined]


def tournaments_page(request: HttpRequest) -> HttpResponse:
    """Tournaments newest first, each with its errored matches counted: one query for a page of rows."""
    games = [(g.id, g.name) for g in game_list(include_unavailable=True)]
    form = TournamentFilterForm(request.GET, games=games)
    if not form.is_valid():
        return render(request, "web/tournaments.html", {"form": form, "page": None}, status=400)
    errored = {"yes": True, "no": False}.get(form.cleaned_data["errored"])
    tournaments = tournament_list(
        user=request.user,
        game_id=form.cleaned_data["game"] or None,
        status=form.cleaned_data["status"] or None,
        errored=errored,
    )
    page = Paginator(tournaments, PAGE_SIZE).get_page(request.GET.get("page"))
    # The filters again in the links to other pages.
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "web/tournaments.html",
        {"form": form, "page": page, "query": query.urlencode(), "filtered": errored is True},
    )
