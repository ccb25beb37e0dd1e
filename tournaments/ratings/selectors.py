"""Reading ratings: leaderboards and a bot's history."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db.models import BooleanField, Case, Exists, Max, OuterRef, Q, QuerySet, Subquery, Value, When

from engines import UnknownEngineError, get_engine
from tournaments.bots.models import Bot, BotVersion, BotVersionRetirement
from tournaments.bots.selectors import versions_built
from tournaments.games.models import Game
from tournaments.ratings.models import PoolFitEntry, Rating, RatingChange
from tournaments.ratings.stats import ErrorBar


def game_rating_pools(*, game: Game) -> list[str]:
    """The pools of the engine's example configurations plus any pool that already has ratings."""
    pools: list[str] = []
    try:
        engine = get_engine(game.id)
        for seats, options in engine.configs():
            pools.append(engine.rating_pool(options, seats))
    except UnknownEngineError:
        pass
    prefix = game.id
    used = Rating.objects.filter(pool__startswith=prefix).values_list("pool", flat=True).distinct()
    for pool in used:
        if (pool == prefix or pool.startswith(prefix + ":")) and pool not in pools:
            pools.append(pool)
    return list(dict.fromkeys(pools))


def leaderboard(*, game_id: str, pool: str, user: Any = None) -> QuerySet[Rating]:
    """Ratings of each visible, active bot's latest version (not retired) in a rating pool.

    The latest version is the one shown; older versions keep their rows for history.
    Each rating carries ``fit_stderr``: its standard error (Elo) in the pool's last
    whole-history fit, None before the first fit that saw one of its games
    (:func:`rating_error_bar` turns it into an interval), and ``provisional``: True
    until it has ARBITER_RATING_MIN_GAMES rated games against bots of at least
    ARBITER_RATING_MIN_OWNERS other owners.  Ranked ratings come first, best
    first; provisional ones follow, unranked.
    """
    # Retired versions (models_challenges.BotVersionRetirement) no longer stand for their bot.
    # "Not retired, and no newer version that is not retired" as an anti-join: PostgreSQL then
    # walks the ratings best first and stops after a page, where an equality with a correlated
    # "latest version" subquery ran that subquery for every rating (0.5 s with 10,000 bots).
    # "Not retired" is NOT IN rather than a join: PostgreSQL hashes the (small) retirement
    # table once instead of scanning it again for each of the 10,000 versions the count reads.
    retired = BotVersionRetirement.objects.values("bot_version_id")
    newer = BotVersion.objects.filter(
        bot_id=OuterRef("bot_version__bot_id"), number__gt=OuterRef("bot_version__number")
    ).exclude(id__in=retired)
    # A newer version still building, or whose build failed, does not stand for its bot either.
    newer = newer.filter(versions_built())
    ratings = (
        Rating.objects.filter(pool=pool, bot_version__bot__game_id=game_id, bot_version__bot__active=True)
        .exclude(bot_version_id__in=retired)
        .exclude(Exists(newer))
        .select_related("bot_version__bot__owner")
        .defer("bot_version__package")
        # A subquery in the select list: evaluated only for the page's rows.
        .annotate(
            fit_stderr=Subquery(
                PoolFitEntry.objects.filter(pool=pool, bot_version_id=OuterRef("bot_version_id")).values("stderr")[:1]
            )
        )
    )
    if not getattr(user, "is_staff", False):
        visible = Q(bot_version__bot__visibility=Bot.Visibility.PUBLIC)
        if user is not None and user.is_authenticated:
            visible |= Q(bot_version__bot__owner_id=user.id)
        ratings = ratings.filter(visible)
    return ratings.annotate(provisional=rating_provisional()).order_by("provisional", "-elo", "bot_version_id")


def rating_provisional() -> Case:
    """An expression: is a rating still too little tested (or tested only by its owner's bots) to rank?"""
    return Case(
        When(
            Q(games__lt=settings.ARBITER_RATING_MIN_GAMES) | Q(opponent_owners__lt=settings.ARBITER_RATING_MIN_OWNERS),
            then=Value(True),
        ),
        default=Value(False),
        output_field=BooleanField(),
    )


def rating_is_provisional(rating: Rating) -> bool:
    """Whether a leaderboard rating (from :func:`leaderboard`) is still provisional."""
    return bool(getattr(rating, "provisional", True))


def rating_error_bar(rating: Rating) -> ErrorBar | None:
    """The 95% error bar around a leaderboard rating's live Elo, or None while its pool has no fit of it."""
    stderr = getattr(rating, "fit_stderr", None)
    return None if stderr is None else ErrorBar.around(rating.elo, stderr, rating.games)


def rating_history(*, bot: Bot, pool: str | None = None) -> QuerySet[RatingChange]:
    """Every rating change of every version of a bot, oldest first."""
    changes = (
        RatingChange.objects.filter(rating__bot_version__bot=bot)
        .select_related("rating", "rating__bot_version", "match")
        .defer("rating__bot_version__package", "match__moves")
    )
    if pool:
        changes = changes.filter(rating__pool=pool)
    return changes.order_by("id")


def bot_ratings(*, bot: Bot) -> QuerySet[Rating]:
    """Current ratings of every version of a bot in every pool."""
    return (
        Rating.objects.filter(bot_version__bot=bot)
        .select_related("bot_version")
        .defer("bot_version__package")
        .annotate(last_change=Max("changes__id"))
        .order_by("pool", "-bot_version__number")
    )


def lineups_sharing_an_owner(*, lineups: Sequence[Sequence[int]]) -> set[int]:
    """Positions of the lineups (bot version ids) in which one owner has bots on two sides: never rated.

    An owner whose bots meet could hand one of them the points (a copy of a good bot
    beating the owner's own crashing bot), so such games count for their competition only.
    """
    versions = {v for lineup in lineups for v in lineup}
    owner_of = dict(BotVersion.objects.filter(id__in=versions).values_list("id", "bot__owner_id"))
    return {
        position
        for position, lineup in enumerate(lineups)
        if len({owner_of[v] for v in set(lineup)}) < len(set(lineup))
    }
