"""Reading ladders: who may play, how much each has played, and how the queue looks."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db.models import Count, Max, QuerySet

from tournaments.bots.models import Bot, BotVersion
from tournaments.bots.selectors import versions_playable
from tournaments.competitions.models import Ladder
from tournaments.matches.models import Match, MatchSeat
from tournaments.ratings.models import Rating

# Matches that count towards a bot's ladder share.  Errored ones count too: a
# bot whose package cannot be run must not be picked first forever.
COUNTED = [Match.Status.QUEUED, Match.Status.RUNNING, Match.Status.FINISHED, Match.Status.ERRORED]


@dataclass
class LadderCandidate:
    """One bot's latest version as the ladder's picker sees it."""

    version_id: int
    elo: float
    recent: int = 0  # ladder games in the recent window (queued and running included)
    total: int = 0  # ladder games ever, for bots without recent games (else the same as recent)
    last_opponents: frozenset[int] = field(default_factory=frozenset)  # in its latest recent match
    owner: int | None = None  # its bot's owner: one owner's bots never rate each other, so they are not paired


def ladder_matches(*, ladder: Ladder) -> QuerySet[Match]:
    """Every match of this ladder (ladder matches of its game and rating pool)."""
    return Match.objects.filter(kind=Match.Kind.LADDER, game_id=ladder.game_id, rating_pool=ladder.pool)


def ladder_queued_count(*, ladder: Ladder) -> int:
    return ladder_matches(ladder=ladder).filter(status=Match.Status.QUEUED).count()


def other_work_queued_count() -> int:
    """Queued matches of every kind but the ladder: while there are some, the ladder waits."""
    return Match.objects.filter(status=Match.Status.QUEUED).exclude(kind=Match.Kind.LADDER).count()


def ladder_latest_versions(*, ladder: Ladder) -> list[int]:
    """The latest version (not retired) of every active public bot of the ladder's game, by bot id."""
    latest: dict[int, int] = {}
    rows = (
        BotVersion.objects.filter(
            versions_playable(),
            bot__game_id=ladder.game_id,
            bot__active=True,
            bot__visibility=Bot.Visibility.PUBLIC,
        )
        .order_by("bot_id", "number")
        .values_list("bot_id", "id")
    )
    for bot_id, version_id in rows:
        latest[bot_id] = version_id
    return [latest[bot_id] for bot_id in sorted(latest)]


def ladder_candidates(*, ladder: Ladder, since: datetime) -> list[LadderCandidate]:
    """Everyone who may play on the ladder, with game counts, rating and last opponents."""
    versions = ladder_latest_versions(ladder=ladder)
    if not versions:
        return []
    seats = MatchSeat.objects.filter(
        bot_version_id__in=versions,
        match__kind=Match.Kind.LADDER,
        match__game_id=ladder.game_id,
        match__rating_pool=ladder.pool,
        match__status__in=COUNTED,
    )
    # Only the recent window is aggregated for everyone, so the cost follows the
    # window's volume, not the ladder's whole history.
    window = {
        version: (games, last)
        for version, games, last in seats.filter(match__created__gte=since)
        .values_list("bot_version_id")
        .annotate(n=Count("match_id", distinct=True), last=Max("match_id"))
        .values_list("bot_version_id", "n", "last")
    }
    # All-time counts break ties between bots without recent games (a new version before an idle one).
    idle = [v for v in versions if v not in window]
    total = (
        dict(
            seats.filter(bot_version_id__in=idle)
            .values_list("bot_version_id")
            .annotate(n=Count("match_id", distinct=True))
        )
        if idle
        else {}
    )
    last_match = {v: last for v, (_, last) in window.items()}
    lineups: dict[int, set[int]] = {}
    for match_id, version_id in MatchSeat.objects.filter(match_id__in=set(last_match.values())).values_list(
        "match_id", "bot_version_id"
    ):
        lineups.setdefault(match_id, set()).add(version_id)
    elo = dict(
        Rating.objects.filter(pool=ladder.pool, bot_version_id__in=versions).values_list("bot_version_id", "elo")
    )
    start = settings.ARBITER_ELO_START
    owners = dict(BotVersion.objects.filter(id__in=versions).values_list("id", "bot__owner_id"))
    return [
        LadderCandidate(
            version_id=v,
            elo=elo.get(v, start),
            recent=window[v][0] if v in window else 0,
            total=window[v][0] if v in window else total.get(v, 0),
            last_opponents=frozenset(lineups.get(last_match[v], set()) - {v}) if v in last_match else frozenset(),
            owner=owners.get(v),
        )
        for v in versions
    ]
