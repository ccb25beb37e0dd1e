"""Reading version tests: a bot's tests, one test's games, and an Elo estimate from its pairs.

Nothing here writes; ``tournaments.competitions.services.version_tests`` keeps the counts
and the LLR stored on the test up to date.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet

from tournaments.bots.models import Bot
from tournaments.competitions.models import VersionTest, VersionTestMatch
from tournaments.matches.models import Match, MatchSeat
from tournaments.ratings.stats import EloModel, Sprt, estimate

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


def version_test_sprt(test: VersionTest) -> Sprt:
    """The sequential test a version test runs (its hypotheses, error rates, scale and cap)."""
    return Sprt(
        elo0=test.elo0,
        elo1=test.elo1,
        alpha=test.alpha,
        beta=test.beta,
        max_games=test.max_games,
        model=EloModel(test.elo_model),
    )


def version_test_estimate(*, test: VersionTest) -> dict[str, float | None]:
    """The candidate's Elo over the baseline with a 95% interval and its LOS.

    Median-unbiased (a test that stopped early stopped on a lucky streak as
    often as not, and the plain mean would overstate it); all None until a
    pair is done or where no finite Elo fits.
    """
    found = estimate(version_test_sprt(test), list(test.pentanomial))
    if found is None:
        return {"elo": None, "elo_low": None, "elo_high": None, "los": None}
    return dict(found.to_json())
