"""A tournament's finished matches as games between teams: the one read behind standings and the performance fit.

Also the points of a game (:func:`game_points`), the one rule that the
standings, the Swiss pairings and the knockout brackets all score by.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from tournaments.competitions.models import Tournament
from tournaments.matches.models import Match, MatchSeat


def game_points(ranks: list[int]) -> list[float]:
    """A game's points per team from its ranks: 1 for first place, split among those who share it.

    1, 1/2 or 0 with two teams.  First place is the best rank in the game:
    rank 1 in every stored result (engines number ranks from 1, ``engines.team_ranks``).
    """
    best = min(ranks)
    firsts = sum(1 for r in ranks if r == best)
    return [1.0 / firsts if r == best else 0.0 for r in ranks]


@dataclass(frozen=True)
class FinishedGame:
    """One finished match seen as teams, in team order (team 0 holds seat 0, the first mover)."""

    members: list[int]  # the participant (bot version id) of each team
    ranks: list[int]  # each team's rank
    forfeits: dict[int, set[str]]  # bot version id -> its non-ok seat statuses


def tournament_finished_games(*, tournament: Tournament) -> list[FinishedGame]:
    """Every finished match of the tournament whose teams all have a rank, in match order (two queries)."""
    # The id range first: bounded by it, PostgreSQL reads the seats through the match_id index.
    # Only joined to the matches, it hashed them and read every seat of every tournament (100,000+).
    # (The ids are fetched, not aggregated: MIN/MAX were planned as a walk along the primary key.)
    finished = list(
        Match.objects.filter(tournament=tournament, status=Match.Status.FINISHED).values_list("id", flat=True)
    )
    seats = (
        MatchSeat.objects.filter(
            match__tournament=tournament,
            match__status=Match.Status.FINISHED,
            match_id__gte=min(finished, default=0),
            match_id__lte=max(finished, default=0),
        )
        .order_by("match_id", "seat")
        .values_list("match_id", "team", "bot_version_id", "rank", "status")
    )
    by_match: dict[int, list[tuple[int, int, int | None, str]]] = defaultdict(list)
    for match_id, team, version, rank, status in seats:
        by_match[match_id].append((team, version, rank, status))
    games = []
    for rows in by_match.values():
        member: dict[int, int] = {}
        rank_of: dict[int, int] = {}
        forfeits: dict[int, set[str]] = defaultdict(set)
        for team, version, rank, status in rows:
            member.setdefault(team, version)
            if rank is not None:
                # Every seat of a team has the team's rank; take the best to be safe.
                rank_of[team] = min(rank_of.get(team, rank), rank)
            if status and status != "ok":
                forfeits[version].add(status)
        teams = sorted(member)
        if len(rank_of) == len(teams):
            games.append(FinishedGame([member[t] for t in teams], [rank_of[t] for t in teams], dict(forfeits)))
    return games
