"""Reading version tests: a bot's tests, one test's games, and an Elo estimate from its pairs.

Nothing here writes; ``tournaments.competitions.services.version_tests`` keeps the counts
and the LLR stored on the test up to date.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Count, Q, QuerySet

from tournaments.bots.models import Bot
from tournaments.competitions.models import VersionTest, VersionTestMatch
from tournaments.matches.models import Match, MatchSeat
from tournaments.ratings.elo import pair_score
from tournaments.ratings.stats import ELO_LIMIT, EloModel, Sprt, Status, estimate

STATUSES = ("queued", "running", "finished", "errored", "cancelled")
IN_PLAY = (Match.Status.QUEUED, Match.Status.RUNNING)


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


def version_test_pairs(*, test: VersionTest) -> tuple[list[tuple[float, float]], int, int]:
    """The candidate's two scores per complete pair in the order the pairs completed, the number of pairs
    created, and pairs still in play.

    The order matters to the SPRT's overshoot correction, which follows the LLR's path.
    """
    links = list(
        VersionTestMatch.objects.filter(test=test).values_list(
            "pair", "game", "match_id", "match__status", "match__finished_at"
        )
    )
    finished = [match_id for _, _, match_id, status, _ in links if status == Match.Status.FINISHED]
    # The candidate's side rank and the other side's, per finished match.
    ranks: dict[int, dict[bool, int]] = defaultdict(dict)
    seats = MatchSeat.objects.filter(match_id__in=finished).values_list("match_id", "bot_version_id", "rank")
    for match_id, version, rank in seats:
        if rank is None:
            continue
        mine = version == test.candidate_id
        ranks[match_id][mine] = min(ranks[match_id].get(mine, rank), rank)
    by_pair: dict[int, dict[int, tuple[float, Any] | None]] = defaultdict(dict)
    in_play: set[int] = set()
    for pair, game, match_id, status, finished_at in links:
        if status in IN_PLAY:
            in_play.add(pair)
        sides = ranks.get(match_id, {})
        done = status == Match.Status.FINISHED and len(sides) == 2
        by_pair[pair][game] = (pair_score(sides[True], sides[False]), finished_at) if done else None
    complete = sorted(
        (max(first[1], second[1]), pair, (first[0], second[0]))
        for pair, games in by_pair.items()
        if (first := games.get(0)) is not None and (second := games.get(1)) is not None
    )
    created = max(by_pair) + 1 if by_pair else 0
    return [scores for _, _, scores in complete], created, len(in_play)


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
    pair is done or where no finite Elo fits.  The scale ends at ``elo_limit``
    (+-1000): an end found there means "at least" (or "at most") that much.
    """
    found = estimate(version_test_sprt(test), list(test.pentanomial))
    if found is None:
        return {"elo": None, "elo_low": None, "elo_high": None, "los": None, "elo_limit": ELO_LIMIT}
    return {**found.to_json(), "elo_limit": ELO_LIMIT}


def version_test_path(*, test: VersionTest) -> list[Status]:
    """The test's LLR and bounds before any pair and after each complete pair, in the order they completed."""
    pairs, _, _ = version_test_pairs(test=test)
    return version_test_sprt(test).path(pairs)
