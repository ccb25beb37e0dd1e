"""Tournaments played in rounds (Swiss): the field as the next pairing sees it, and each round's pairings.

A round's matches are the ``size`` matches from its ``first_index`` on
(``TournamentRound``); a pairing is the ``games_per_pairing`` consecutive
matches between the same two bots, seats swapped each game.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from tournaments.competitions.models import Participant, Tournament, TournamentRound
from tournaments.competitions.selectors.results import game_points
from tournaments.competitions.selectors.tournaments import participants_seeded
from tournaments.competitions.swiss import SwissPlayer
from tournaments.matches.models import Match, MatchSeat

# Formats whose matches are planned a round at a time, each from the results before it.
ROUND_FORMATS = frozenset({Tournament.Format.SWISS, Tournament.Format.KNOCKOUT, Tournament.Format.DOUBLE_ELIMINATION})

OPEN = (Match.Status.QUEUED, Match.Status.RUNNING)


def round_open(*, tournament: Tournament) -> bool:
    """Whether a match of the tournament's current round is still queued or running."""
    row = TournamentRound.objects.filter(tournament=tournament, number=tournament.current_round).first()
    if row is None:
        return False
    return Match.objects.filter(
        tournament=tournament, index__gte=row.first_index, index__lt=row.first_index + row.size, status__in=OPEN
    ).exists()


@dataclass(frozen=True)
class SwissField:
    """The participants in seed order (bot version ids) and what each has done, for ``swiss.swiss_pair``."""

    versions: list[int]
    players: list[SwissPlayer]


def swiss_field(*, tournament: Tournament) -> SwissField:
    """Scores, opponents met, seat balance and byes of every participant (three queries).

    A finished game scores as in the standings; a bye is worth a pairing won
    outright (``games_per_pairing`` points).  Every match made counts as a
    meeting, even one cancelled or errored, so a pairing is never made twice;
    seat balance counts the matches not cancelled.
    """
    entries = list(participants_seeded(tournament=tournament).values_list("bot_version_id", "withdrawn"))
    versions = [v for v, _ in entries]
    seat = {v: i for i, v in enumerate(versions)}
    score = [0.0] * len(versions)
    balance = [0] * len(versions)
    byes = [0] * len(versions)
    opponents: list[set[int]] = [set() for _ in versions]
    for bye in TournamentRound.objects.filter(tournament=tournament, bye__isnull=False).values_list("bye", flat=True):
        byes[seat[bye]] += 1
        score[seat[bye]] += tournament.games_per_pairing
    # match -> team -> (version, best rank of its seats); and the match's status
    teams: dict[int, dict[int, tuple[int, int | None]]] = defaultdict(dict)
    status: dict[int, str] = {}
    rows = MatchSeat.objects.filter(match__tournament=tournament).values_list(
        "match_id", "team", "bot_version_id", "rank", "match__status"
    )
    for match_id, team, version, rank, match_status in rows:
        known = teams[match_id].get(team)
        best = rank if known is None or known[1] is None or (rank is not None and rank < known[1]) else known[1]
        teams[match_id][team] = (version, best)
        status[match_id] = match_status
    for match_id, by_team in teams.items():
        members = [seat[by_team[t][0]] for t in sorted(by_team)]
        for a in members:
            opponents[a].update(b for b in members if b != a)
        if status[match_id] == Match.Status.CANCELLED:
            continue
        balance[members[0]] += 1
        balance[members[-1]] -= 1
        ranks = [by_team[t][1] for t in sorted(by_team)]
        if status[match_id] == Match.Status.FINISHED and None not in ranks:
            for member, points in zip(members, game_points([r for r in ranks if r is not None]), strict=True):
                score[member] += points
    players = [
        SwissPlayer(
            score=score[i],
            opponents=frozenset(opponents[i]),
            seat_balance=balance[i],
            byes=byes[i],
            withdrawn=withdrawn,
        )
        for i, (_, withdrawn) in enumerate(entries)
    ]
    return SwissField(versions=versions, players=players)


def tournament_rounds(*, tournament: Tournament) -> list[dict[str, Any]]:
    """Each round's pairings, with the games' results so far, and its bye (for the API and the rounds page)."""
    names = dict(
        Participant.objects.filter(tournament=tournament).values_list("bot_version_id", "bot_version__bot__name")
    )
    seats = (
        MatchSeat.objects.filter(match__tournament=tournament)
        .order_by("match__index", "team", "seat")
        .values_list("match__index", "match_id", "match__status", "team", "bot_version_id", "rank")
    )
    by_index: dict[int, dict[str, Any]] = {}
    for index, match_id, match_status, team, version, rank in seats:
        if index is None:  # not a tournament's match; cannot happen here
            continue
        game = by_index.setdefault(index, {"match": match_id, "status": match_status, "teams": {}})
        game["teams"].setdefault(team, (version, rank))  # every seat of a team has the team's rank
    per_pairing = max(1, tournament.games_per_pairing)
    rounds = []
    for row in TournamentRound.objects.filter(tournament=tournament).order_by("number"):
        pairings = []
        for start in range(row.first_index, row.first_index + row.size, per_pairing):
            games = [by_index[i] for i in range(start, start + per_pairing) if i in by_index]
            if not games:
                continue
            first, second = (games[0]["teams"][t][0] for t in sorted(games[0]["teams"]))
            points = {first: 0.0, second: 0.0}
            for game in games:
                ranked = [game["teams"][t] for t in sorted(game["teams"])]
                if game["status"] == Match.Status.FINISHED and all(r is not None for _, r in ranked):
                    for (version, _), p in zip(
                        ranked, game_points([r for _, r in ranked if r is not None]), strict=True
                    ):
                        points[version] += p
            pairings.append(
                {
                    "first": first,
                    "first_name": names.get(first, ""),
                    "second": second,
                    "second_name": names.get(second, ""),
                    "first_points": points[first],
                    "second_points": points[second],
                    "matches": [{"id": g["match"], "status": g["status"]} for g in games],
                    "done": all(g["status"] not in OPEN for g in games),
                }
            )
        rounds.append(
            {
                "number": row.number,
                "pairings": pairings,
                "bye": row.bye_id,
                "bye_name": names.get(row.bye_id, "") if row.bye_id else "",
            }
        )
    return rounds
