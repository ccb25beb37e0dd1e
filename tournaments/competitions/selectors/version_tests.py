"""Reading version tests: a bot's tests, one test's games, and an Elo estimate from its pairs.

Nothing here writes; ``tournaments.competitions.services.version_tests`` keeps the counts
and the LLR stored on the test up to date.
"""

from __future__ import annotations

import math
from typing import Any

from django.db.models import Count, Q, QuerySet

from tournaments.bots.models import Bot
from tournaments.competitions.models import VersionTest, VersionTestMatch
from tournaments.matches.models import Match, MatchSeat

Z95 = 1.959963984540054
STATUSES = ("queued", "running", "finished", "errored", "cancelled")


def version_test_list(*, bot: Bot) -> QuerySet[VersionTest]:
    """The bot's tests, newest first, with per-status match counts (``n_queued`` ... ``n_cancelled``)."""
    return (
        VersionTest.objects.filter(bot=bot)
        .select_related("bot", "owner", "candidate", "baseline")
        .defer("candidate__package", "baseline__package")
        .annotate(**{f"n_{s}": Count("links", filter=Q(links__match__status=s)) for s in STATUSES})
        .order_by("-id")
    )


def version_test_get(*, bot: Bot, test_id: int) -> VersionTest | None:
    return version_test_list(bot=bot).filter(id=test_id).first()


def version_test_games(*, test: VersionTest) -> list[dict[str, Any]]:
    """The test's games in pair order: pair, game (0: candidate first), match id, status, the candidate's score."""
    links = (
        VersionTestMatch.objects.filter(test=test)
        .select_related("match")
        .only("pair", "game", "match__id", "match__status")
        .order_by("pair", "game")
    )
    finished = [link.match_id for link in links if link.match.status == Match.Status.FINISHED]
    ranks: dict[int, dict[bool, int]] = {}
    for match_id, version, rank in MatchSeat.objects.filter(match_id__in=finished).values_list(
        "match_id", "bot_version_id", "rank"
    ):
        if rank is not None:
            side = ranks.setdefault(match_id, {})
            mine = version == test.candidate_id
            side[mine] = min(side.get(mine, rank), rank)
    out = []
    for link in links:
        sides = ranks.get(link.match_id, {})
        score = None
        if len(sides) == 2:
            score = 1.0 if sides[True] < sides[False] else 0.5 if sides[True] == sides[False] else 0.0
        out.append(
            {"pair": link.pair, "game": link.game, "match": link.match_id, "status": link.match.status, "score": score}
        )
    return out


def _elo(score: float) -> float:
    return -400.0 * math.log10(1.0 / score - 1.0)


def version_test_elo(*, pentanomial: list[int]) -> dict[str, float | None]:
    """The candidate's Elo over the baseline estimated from the pairs, with a 95% interval.

    The mean pair score gives the estimate; its standard error uses the
    variance between pairs, so the correlation inside a pair is accounted
    for.  None where the score is 0 or 1 (no finite Elo) or no pair is done.
    """
    n = sum(pentanomial)
    none: dict[str, float | None] = {"elo": None, "elo_low": None, "elo_high": None}
    if n == 0:
        return none
    xs = [k / 4.0 for k in range(5)]  # a pair's score over two games, as a fraction
    mean = sum(c * x for c, x in zip(pentanomial, xs, strict=True)) / n
    if not 0.0 < mean < 1.0:
        return none
    var = sum(c * (x - mean) ** 2 for c, x in zip(pentanomial, xs, strict=True)) / n
    half = Z95 * math.sqrt(var / n)
    low, high = mean - half, mean + half
    return {
        "elo": _elo(mean),
        "elo_low": _elo(low) if low > 0.0 else None,
        "elo_high": _elo(high) if high < 1.0 else None,
    }
