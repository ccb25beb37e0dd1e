"""Reading ratings: leaderboards and a bot's history."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import BooleanField, Case, Exists, Max, OuterRef, Q, QuerySet, Subquery, Value, When

from engines import UnknownEngineError, get_engine
from tournaments.bots.models import Bot, BotVersion, BotVersionRetirement
from tournaments.bots.selectors import versions_built
from tournaments.games.models import Game
from tournaments.ratings.models import PoolFitEntry, Rating, RatingChange
from tournaments.ratings.pools import ORGANISER_MARK, organiser_pool, pool_in_words, pool_is_public, pool_key_read
from tournaments.ratings.stats import ErrorBar


def game_rating_pools(*, game: Game) -> list[str]:
    """The game's public pools: the engine's example configurations plus any public pool that has ratings."""
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
        if (pool == prefix or pool.startswith(prefix + ":")) and pool_is_public(pool) and pool not in pools:
            pools.append(pool)
    return list(dict.fromkeys(pools))


def organiser_pools(*, game_id: str, organiser_id: int) -> list[str]:
    """The organiser's own pools of a game that hold ratings, sorted."""
    suffix = ORGANISER_MARK + str(organiser_id)
    used = Rating.objects.filter(pool__startswith=game_id, pool__endswith=suffix).values_list("pool", flat=True)
    keys = {p: pool_key_read(p) for p in set(used)}
    return sorted(p for p, key in keys.items() if key.game_id == game_id and key.organiser_id == organiser_id)


def pool_of_game(*, game_id: str, pool: str) -> bool:
    """Whether ``pool`` is one of the game's pools (public or an organiser's)."""
    return pool_key_read(pool).game_id == game_id


def pool_of_organiser(*, pool: str, username: str) -> str | None:
    """The named user's own pool beside the game's pool ``pool``; None when no user has that name."""
    user_id = get_user_model().objects.filter(username=username).values_list("pk", flat=True).first()
    return None if user_id is None else organiser_pool(base=pool, organiser_id=user_id)


def pool_organiser_name(*, pool: str) -> str | None:
    """The username of the organiser whose pool this is; None for a public pool (or a user since deleted)."""
    organiser_id = pool_key_read(pool).organiser_id
    if organiser_id is None:
        return None
    name: str | None = get_user_model().objects.filter(pk=organiser_id).values_list("username", flat=True).first()
    return name


def leaderboard(*, game_id: str, pool: str, user: Any = None) -> QuerySet[Rating]:
    """Ratings of each visible, active bot's latest version (not retired) in a rating pool.

    The latest version is the one shown; older versions keep their rows for history.
    Each rating carries ``fit_stderr``: its standard error (Elo) in the pool's last
    whole-history fit, None before the first fit that saw one of its games
    (:func:`rating_error_bar` turns it into an interval), and ``provisional``
    (:func:`rating_provisional`).  Every rating has a place: the settled ones
    first, best first, then the provisional ones, best first.
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
    return ratings.annotate(provisional=rating_provisional(pool=pool)).order_by("provisional", "-elo", "bot_version_id")


def pool_summaries(*, game_id: str, pools: Sequence[str], user: Any = None) -> dict[str, dict[str, Any]]:
    """Per pool, in words, with its leaderboard's bot count and leader (None while it has no rating).

    One query finds the pools that hold ratings, then two per such pool (bounded
    by the engine's configurations plus the pools in use).
    """
    used = set(Rating.objects.filter(pool__in=pools).values_list("pool", flat=True).distinct())
    summaries = {}
    for pool in pools:
        board = leaderboard(game_id=game_id, pool=pool, user=user) if pool in used else None
        summaries[pool] = {
            "pool": pool,
            "words": pool_in_words(pool),
            "bots": board.count() if board is not None else 0,
            "leader": board.first() if board is not None else None,
        }
    return summaries


def rating_provisional(*, pool: str) -> Case:
    """An expression: is a rating of ``pool`` still too little tested to be trusted at its place?

    Every pool asks for ARBITER_RATING_MIN_GAMES rated games; a public pool
    also asks for ARBITER_RATING_MIN_OWNERS other owners met.  An organiser's
    pool does not: its games, the organiser's own bots' included, were chosen
    by the one person who reads it.
    """
    too_few = Q(games__lt=settings.ARBITER_RATING_MIN_GAMES)
    if pool_is_public(pool):
        too_few |= Q(opponent_owners__lt=settings.ARBITER_RATING_MIN_OWNERS)
    return Case(When(too_few, then=Value(True)), default=Value(False), output_field=BooleanField())


def rating_is_provisional(rating: Rating) -> bool:
    """Whether a leaderboard rating (from :func:`leaderboard`) is still provisional."""
    return bool(getattr(rating, "provisional", True))


def rating_provisional_reason(rating: Rating) -> str | None:
    """Why a rating is still provisional, in words (None once it is not); the rule of :func:`rating_provisional`."""
    reasons = []
    min_games, min_owners = settings.ARBITER_RATING_MIN_GAMES, settings.ARBITER_RATING_MIN_OWNERS
    if rating.games < min_games:
        reasons.append(f"{rating.games} of {min_games} rated games")
    if pool_is_public(rating.pool) and rating.opponent_owners < min_owners:
        reasons.append(f"{rating.opponent_owners} of {min_owners} other owners met")
    return "; ".join(reasons) or None


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


def bots_headline_ratings(*, bot_ids: Sequence[int]) -> dict[int, Rating]:
    """Per bot, the rating a list shows: its newest rated version's, in the pool where it played most (one query)."""
    ratings = (
        Rating.objects.filter(bot_version__bot_id__in=bot_ids)
        .select_related("bot_version")
        .defer("bot_version__package")
        .order_by("bot_version__bot_id", "-bot_version__number", "-games", "pool")
    )
    headline: dict[int, Rating] = {}
    for rating in ratings:
        headline.setdefault(rating.bot_version.bot_id, rating)
    return headline


def bot_ratings(*, bot: Bot) -> QuerySet[Rating]:
    """Current ratings of every version of a bot in every pool."""
    return (
        Rating.objects.filter(bot_version__bot=bot)
        .select_related("bot_version")
        .defer("bot_version__package")
        .annotate(last_change=Max("changes__id"))
        .order_by("pool", "-bot_version__number")
    )


def lineups_unrated(*, pool: str, lineups: Sequence[Sequence[int]]) -> set[int]:
    """Positions of the lineups (bot version ids per team) that must not be rated in ``pool``.

    In a public pool, those where one owner has bots on two sides; in an
    organiser's own pool none: farming there only fools the organiser.
    """
    return lineups_sharing_an_owner(lineups=lineups) if pool_is_public(pool) else set()


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
