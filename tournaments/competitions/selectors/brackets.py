"""Knockouts: the bracket as the results so far make it, for the next round's plan, the API and the page.

Each pairing's games are the matches whose indices its ``BracketPairing``
row lists; a game's points are as in the standings (1 to the winner, 1/2 each
for a draw), and a game that ended without a result scores nothing.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from tournaments.competitions.brackets import (
    DECIDED,
    EMPTY,
    Node,
    NodeState,
    PairingDecision,
    bracket_nodes,
    bracket_placings,
    bracket_resolve,
    pairing_decide,
)
from tournaments.competitions.models import BracketPairing, Participant, Tournament
from tournaments.competitions.selectors.results import game_points
from tournaments.competitions.selectors.rounds import OPEN
from tournaments.competitions.selectors.tournaments import participants_seeded
from tournaments.matches.models import Match, MatchSeat


@dataclass(frozen=True)
class PairingPlayed:
    """One pairing's row and its games so far: (first's points, second's points) per ended game, and open ones."""

    row: BracketPairing
    points: list[tuple[float, float]]
    open: int
    matches: list[dict[str, Any]]
    decision: PairingDecision


@dataclass(frozen=True)
class BracketState:
    """A knockout's bracket given its results: the seeds' versions, nodes, their states and the pairings played."""

    versions: list[int]
    nodes: list[Node]
    states: dict[str, NodeState]
    pairings: dict[str, PairingPlayed]


def knockout_state(*, tournament: Tournament) -> BracketState:
    """The bracket of a knockout now (three queries): who met whom, who won, what is due.

    A withdrawn bot loses the pairings it has not won yet (brackets.py).
    """
    entries = list(participants_seeded(tournament=tournament).values_list("bot_version_id", "withdrawn"))
    versions = [v for v, _ in entries]
    withdrawn = {i for i, (_, out) in enumerate(entries) if out}
    nodes = bracket_nodes(len(versions), double=tournament.format == Tournament.Format.DOUBLE_ELIMINATION)
    rows = list(BracketPairing.objects.filter(tournament=tournament).order_by("round", "id"))
    # match index -> team -> (version, rank), and the match's id and status
    teams: dict[int, dict[int, tuple[int, int | None]]] = defaultdict(dict)
    status: dict[int, tuple[int, str]] = {}
    seats = MatchSeat.objects.filter(match__tournament=tournament).values_list(
        "match__index", "match_id", "match__status", "team", "bot_version_id", "rank"
    )
    for index, match_id, match_status, team, version, rank in seats:
        if index is None:
            continue
        teams[index].setdefault(team, (version, rank))  # every seat of a team has the team's rank
        status[index] = (match_id, match_status)
    pairings: dict[str, PairingPlayed] = {}
    winners: dict[str, int] = {}
    seed = {v: i for i, v in enumerate(versions)}
    for row in rows:
        points: list[tuple[float, float]] = []
        matches: list[dict[str, Any]] = []
        still_open = 0
        for index in row.games:
            match_id, match_status = status.get(index, (0, Match.Status.QUEUED))
            matches.append({"id": match_id, "status": match_status})
            if match_status in OPEN:
                still_open += 1
                continue
            by_team = [teams[index][t] for t in sorted(teams[index])]
            got = {row.first_id: 0.0, row.second_id: 0.0}
            ranks = [r for _, r in by_team]
            if match_status == Match.Status.FINISHED and None not in ranks:
                for (version, _), p in zip(by_team, game_points([r for r in ranks if r is not None]), strict=True):
                    got[version] += p
            points.append((got[row.first_id], got[row.second_id]))
        decision = (
            PairingDecision(None, False)
            if still_open
            else pairing_decide(points, games_per_pairing=tournament.games_per_pairing)
        )
        if decision.winner is not None:
            winners[row.key] = seed[row.first_id if decision.winner == 0 else row.second_id]
        pairings[row.key] = PairingPlayed(row, points, still_open, matches, decision)
    states = bracket_resolve(nodes, len(versions), winners, withdrawn)
    return BracketState(versions=versions, nodes=nodes, states=states, pairings=pairings)


def tournament_bracket(*, tournament: Tournament) -> dict[str, Any]:
    """A knockout's bracket for the API and the page: every node with its sides, games and winner; the placings."""
    state = knockout_state(tournament=tournament)
    names = dict(
        Participant.objects.filter(tournament=tournament).values_list("bot_version_id", "bot_version__bot__name")
    )

    def entrant(index: int | None) -> dict[str, Any] | None:
        if index is None or index == EMPTY:
            return None
        version = state.versions[index]
        return {"seed": index + 1, "bot_version": version, "name": names.get(version, "")}

    nodes = []
    for node in state.nodes:
        node_state = state.states[node.key]
        played = state.pairings.get(node.key)
        points = [sum(p[0] for p in played.points), sum(p[1] for p in played.points)] if played else [0.0, 0.0]
        # The row lists the higher seed first; the node's sides are in bracket order.
        if played and node_state.first is not None and state.versions[node_state.first] != played.row.first_id:
            points.reverse()
        nodes.append(
            {
                "key": node.key,
                "part": node.part,
                "round": node.round,
                "first": entrant(node_state.first),
                "second": entrant(node_state.second),
                "status": node_state.status,
                "bye": node_state.status == DECIDED and not node_state.played,
                "first_points": points[0],
                "second_points": points[1],
                "played_in_round": played.row.round if played else None,
                "matches": played.matches if played else [],
                "winner": entrant(node_state.winner),
            }
        )
    placings = bracket_placings(state.nodes, state.states, len(state.versions))
    return {
        "format": tournament.format,
        "seeding": tournament.seeding,
        "games_per_pairing": tournament.games_per_pairing,
        "nodes": nodes,
        "placings": sorted(
            ({"place": place, **(entrant(i) or {})} for i, place in enumerate(placings) if place is not None),
            key=lambda row: (row["place"], row["seed"]),
        ),
    }


def knockout_rounds(*, tournament: Tournament) -> list[dict[str, Any]]:
    """A knockout's rounds in the shape of ``rounds.tournament_rounds``: each round's pairings, deciders included."""
    state = knockout_state(tournament=tournament)
    names = dict(
        Participant.objects.filter(tournament=tournament).values_list("bot_version_id", "bot_version__bot__name")
    )
    by_round: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for played in state.pairings.values():
        row = played.row
        by_round[row.round].append(
            {
                "first": row.first_id,
                "first_name": names.get(row.first_id, ""),
                "second": row.second_id,
                "second_name": names.get(row.second_id, ""),
                "first_points": sum(p[0] for p in played.points),
                "second_points": sum(p[1] for p in played.points),
                "matches": played.matches,
                "done": state.states[row.key].status == DECIDED,
            }
        )
    return [
        {"number": number, "pairings": by_round[number], "bye": None, "bye_name": ""}
        for number in range(1, tournament.current_round + 1)
    ]
