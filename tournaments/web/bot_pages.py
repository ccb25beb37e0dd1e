"""A bot's page and the matchup page of two bots: what an author reads about how a bot does.

Both read through the selectors and hand plain data to a template; nothing here writes.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from tournaments.bots.models import Bot
from tournaments.bots.selectors import bot_get, bot_versions
from tournaments.competitions.selectors.version_tests import version_test_list
from tournaments.matches.selectors import bot_forfeits, match_list
from tournaments.ratings.charts import rating_charts
from tournaments.ratings.matchups import RECORD_MATCHES, matchup, opponent_records
from tournaments.ratings.selectors import bot_ratings, rating_history
from tournaments.web.views import RECENT_MATCHES, match_rows

RECENT_VERSION_TESTS = 10  # version tests listed on a bot's page
RECENT_FORFEITS = 10  # forfeits listed on a bot's page


def bot_page(request: HttpRequest, bot_id: int) -> HttpResponse:
    """A bot's rating history, record per opponent, recent forfeits, versions, ratings and latest matches."""
    bot = bot_get(user=request.user, bot_id=bot_id)
    if bot is None:
        raise Http404
    versions = list(bot_versions(bot=bot))
    ratings = list(bot_ratings(bot=bot))
    charts = rating_charts(rating_history(bot=bot))
    recent = match_rows(match_list(user=request.user, bot_id=bot.id)[:RECENT_MATCHES])
    # The latest few version tests, with LLR and bounds (one query).
    version_tests = list(version_test_list(bot=bot)[:RECENT_VERSION_TESTS])
    return render(
        request,
        "web/bot.html",
        {
            "bot": bot,
            "versions": versions,
            "ratings": ratings,
            "charts": charts,
            "recent": recent,
            "records": opponent_records(user=request.user, bot=bot),
            "record_matches": RECORD_MATCHES,
            "forfeits": bot_forfeits(user=request.user, bot_id=bot.id, limit=RECENT_FORFEITS),
            "version_tests": version_tests,
            "visibility_choices": Bot.Visibility.choices,
        },
    )


def matchup_page(request: HttpRequest, bot_id: int, opponent_id: int) -> HttpResponse:
    """Every game between two bots: score, Elo change per game, and the first bot's performance."""
    bot = bot_get(user=request.user, bot_id=bot_id)
    opponent = bot_get(user=request.user, bot_id=opponent_id)
    if bot is None or opponent is None or bot.id == opponent.id:
        raise Http404
    return render(
        request,
        "web/matchup.html",
        {"bot": bot, "opponent": opponent, **matchup(user=request.user, bot=bot, opponent=opponent)},
    )
