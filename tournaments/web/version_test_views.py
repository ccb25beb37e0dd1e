"""Version-test pages: a bot's tests, starting one, one test's SPRT as it goes (with its LLR chart), cancelling.

Every read goes through tournaments.competitions.selectors.version_tests and every
write through its services, with the API's checks and messages.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.safestring import SafeString
from django.views.decorators.http import require_POST

from tournaments.bots.models import Bot
from tournaments.bots.selectors import bot_get, bot_versions
from tournaments.competitions.models import VersionTest
from tournaments.competitions.selectors.version_tests import (
    version_test_estimate,
    version_test_get,
    version_test_list,
    version_test_path,
)
from tournaments.competitions.services.version_tests import version_test_cancel, version_test_create
from tournaments.errors import ServiceError
from tournaments.ratings.charts import COLOURS, Series, series_chart_svg
from tournaments.ratings.stats import Status
from tournaments.web.forms import VersionTestForm, errors_into

REFRESH_S = 5  # a running test's page reloads itself this often


def _bot(request: HttpRequest, bot_id: int) -> Bot:
    bot = bot_get(user=request.user, bot_id=bot_id)
    if bot is None:
        raise Http404
    return bot


def _test(request: HttpRequest, bot_id: int, test_id: int) -> VersionTest:
    test = version_test_get(bot=_bot(request, bot_id), test_id=test_id)
    if test is None:
        raise Http404
    return test


def llr_chart(path: list[Status]) -> SafeString:
    """The LLR after each pair between the bounds in force (moved in by the overshoot correction)."""
    steps = list(enumerate(path))
    return series_chart_svg(
        [
            Series("H1 bound", [(n, s.upper) for n, s in steps], COLOURS[2], dashed=True),
            Series("H0 bound", [(n, s.lower) for n, s in steps], COLOURS[1], dashed=True),
            Series("LLR", [(n, s.llr) for n, s in steps], COLOURS[0]),
        ],
        title="LLR over pairs",
        x_label="pairs",
        css_class="llr-chart",
    )


def version_tests_page(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Every version test of a bot, newest first."""
    bot = _bot(request, bot_id)
    return render(request, "web/version_tests.html", {"bot": bot, "tests": list(version_test_list(bot=bot))})


def version_test_page(request: HttpRequest, bot_id: int, test_id: int) -> HttpResponse:
    """One test: status, LLR chart, estimate with its interval and LOS, counts, bounds, its games' progress."""
    test = _test(request, bot_id, test_id)
    estimate: dict[str, Any] = version_test_estimate(test=test)
    limit = estimate["elo_limit"]
    context = {
        "bot": test.bot,
        "test": test,
        "estimate": estimate,
        "los_percent": None if estimate["los"] is None else 100.0 * estimate["los"],
        # An interval end at the scale's end means "at least" that much (docs/ratings.md).
        "high_capped": estimate["elo_high"] is not None and estimate["elo_high"] >= limit,
        "low_capped": estimate["elo_low"] is not None and estimate["elo_low"] <= -limit,
        "chart": llr_chart(version_test_path(test=test)),
        "penta": list(zip(("0", "½", "1", "1½", "2"), test.pentanomial, strict=True)),
        "progress": {s: getattr(test, f"n_{s}", 0) for s in ("queued", "running", "finished", "errored")},
        "running": test.status == VersionTest.Status.RUNNING,
        "refresh_s": REFRESH_S,
        "mine": request.user.is_authenticated and test.owner_id == request.user.id,
    }
    return render(request, "web/version_test.html", context)


@login_required
def version_test_new(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Start a version test of one of the user's bots."""
    bot = _bot(request, bot_id)
    if bot.owner_id != request.user.id:
        raise Http404
    numbers = [v.number for v in bot_versions(bot=bot)]
    form = VersionTestForm(request.POST or None, numbers=numbers)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            test = version_test_create(
                user=request.user,
                bot_id=bot.id,
                candidate_number=data["candidate"],
                baseline_number=data["baseline"],
                elo0=data["elo0"],
                elo1=data["elo1"],
                max_games=data["max_games"],
            )
        except ServiceError as exc:
            errors_into(form, exc)
        else:
            messages.success(request, f"Testing v{data['candidate']} against v{data['baseline']}.")
            return redirect("web-version-test", bot_id=bot.id, test_id=test.id)
    return render(request, "web/version_test_new.html", {"bot": bot, "form": form}, status=400 if form.errors else 200)


@login_required
@require_POST
def version_test_cancel_view(request: HttpRequest, bot_id: int, test_id: int) -> HttpResponse:
    """Cancel a running test (its owner): its games not yet played out are cancelled and count for nothing."""
    test = _test(request, bot_id, test_id)
    try:
        version_test_cancel(test=test, user=request.user)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "The test is cancelled.")
    return redirect("web-version-test", bot_id=bot_id, test_id=test_id)
