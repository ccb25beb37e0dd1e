"""Knockouts (single and double elimination), played in rounds: the start, each next round, each decider.

A knockout round is every pairing of the bracket that is due when the round
before is over (in a double elimination, winners' and losers' bracket
pairings side by side).  Each pairing plays its N games at once, seats
swapped each game, the higher seed first in the first game; when they tie,
one decider game is added to the same round at a time (brackets.py's
``pairing_decide``), so a round is over only when every pairing in it is
decided.  Planning follows the rounds rule (services/rounds.py): a new round
is claimed by the conditional UPDATE of ``current_round``, a decider by a
conditional UPDATE of the round's ``size``, so neither is inserted twice.
"""

from __future__ import annotations

import logging

from django.db.models import F, Max

from engines import get_engine
from tournaments.competitions.brackets import DUE, Node, bracket_depth, bracket_due, bracket_nodes
from tournaments.competitions.models import BracketPairing, Tournament, TournamentRound
from tournaments.competitions.selectors.brackets import BracketState, knockout_state
from tournaments.competitions.services.endings import tournament_finish_if_done
from tournaments.competitions.services.limits import queue_check
from tournaments.competitions.services.seeding import participants_seed
from tournaments.competitions.services.tournaments import tournament_match_config
from tournaments.matches.life import Lineup, matches_create, matches_enqueue
from tournaments.matches.models import Match
from tournaments.matches.seeds import seed_draw

logger = logging.getLogger(__name__)

KNOCKOUT_FORMATS = frozenset({Tournament.Format.KNOCKOUT, Tournament.Format.DOUBLE_ELIMINATION})


def knockout_start(*, tournament: Tournament) -> list[int]:
    """Seed the field, draw the bracket and insert round 1; returns its match ids (not enqueued).

    Called by ``tournament_start`` inside its transaction, holding the
    tournament's lock; the caller enqueues the matches and sets ``planned``.
    ``rounds`` is set to the most rounds the bracket can take and lowered to
    the rounds played when it is decided.
    """
    versions = participants_seed(tournament=tournament)
    nodes = bracket_nodes(len(versions), double=tournament.format == Tournament.Format.DOUBLE_ELIMINATION)
    tournament.rounds = bracket_depth(nodes) if len(versions) >= 2 else 0
    Tournament.objects.filter(pk=tournament.pk).update(rounds=tournament.rounds)
    if len(versions) < 2:
        return []
    claimed = Tournament.objects.filter(pk=tournament.pk, current_round=0).update(current_round=1)
    if not claimed:
        return []
    tournament.current_round = 1
    state = knockout_state(tournament=tournament)
    return _round_insert(tournament=tournament, number=1, state=state)


def _lineups_for(*, tournament: Tournament, pairing: BracketPairing, first_index: int, games: int) -> list[Lineup]:
    """``games`` more games of a pairing from ``first_index`` on, seats continuing to alternate."""
    played = len(pairing.games)
    lineups = []
    for g in range(games):
        number = played + g
        order = (pairing.first_id, pairing.second_id) if number % 2 == 0 else (pairing.second_id, pairing.first_id)
        lineups.append(Lineup(versions=order, seed=seed_draw(), index=first_index + g))
        pairing.games.append(first_index + g)
    return lineups


def _next_index(tournament: Tournament) -> int:
    last = Match.objects.filter(tournament=tournament).aggregate(last=Max("index"))["last"]
    return 0 if last is None else last + 1


def _insert(*, tournament: Tournament, lineups: list[Lineup]) -> list[int]:
    teams = get_engine(tournament.game_id).teams(tournament.seats, tournament.options)
    return matches_create(config=tournament_match_config(tournament=tournament, teams=teams), lineups=lineups)


def _due(state: BracketState) -> list[Node]:
    """The bracket's due pairings not yet made (a tied one waiting for its decider is made already)."""
    return [node for node in bracket_due(state.nodes, state.states) if node.key not in state.pairings]


def _round_insert(*, tournament: Tournament, number: int, state: BracketState) -> list[int]:
    """Insert round ``number``: every due pairing, its N games; returns the match ids."""
    due = _due(state)
    if number == 1 and not tournament.owner.is_staff:
        # At the start only, as a Swiss: a tournament under way is not held up by its owner's queue.
        queue_check(owner_id=tournament.owner_id, adding=len(due) * tournament.games_per_pairing)
    first_index = index = _next_index(tournament)
    lineups: list[Lineup] = []
    rows = []
    for node in due:
        a, b = state.states[node.key].first, state.states[node.key].second
        assert a is not None and b is not None  # due: both sides known
        high, low = min(a, b), max(a, b)
        row = BracketPairing(
            tournament=tournament,
            key=node.key,
            round=number,
            first_id=state.versions[high],
            second_id=state.versions[low],
            games=[],
        )
        lineups += _lineups_for(
            tournament=tournament, pairing=row, first_index=index, games=tournament.games_per_pairing
        )
        index += tournament.games_per_pairing
        rows.append(row)
    if not lineups:
        return []
    ids = _insert(tournament=tournament, lineups=lineups)
    BracketPairing.objects.bulk_create(rows)
    TournamentRound.objects.create(tournament=tournament, number=number, first_index=first_index, size=len(ids))
    return ids


def _deciders_insert(*, tournament: Tournament, state: BracketState) -> list[int] | None:
    """One decider game for each tied pairing of the current round, added to that round; the match ids.

    None when another process added them first.
    """
    tied = [
        p
        for p in state.pairings.values()
        if p.decision.decider
        and p.row.round == tournament.current_round
        and state.states[p.row.key].status == DUE  # not given up by a withdrawn bot
    ]
    if not tied:
        return []
    row = TournamentRound.objects.get(tournament=tournament, number=tournament.current_round)
    # Claimed like a round: whoever grows the round first inserts its deciders.
    if not TournamentRound.objects.filter(pk=row.pk, size=row.size).update(size=row.size + len(tied)):
        return None
    index = row.first_index + row.size
    lineups: list[Lineup] = []
    for played in tied:
        lineups += _lineups_for(tournament=tournament, pairing=played.row, first_index=index + len(lineups), games=1)
    ids = _insert(tournament=tournament, lineups=lineups)
    for played in tied:
        played.row.save(update_fields=["games"])
    return ids


def knockout_round_next(*, tournament: Tournament) -> int | None:
    """The current round is over: its deciders, or the next round, or the finish; the round played on, or None.

    Called by ``rounds.tournament_round_next`` in its transaction once no
    match of the current round is queued or running.
    """
    state = knockout_state(tournament=tournament)
    ids = _deciders_insert(tournament=tournament, state=state)
    if ids is None:
        return None  # the deciders were added by someone else meanwhile
    number = tournament.current_round
    if not ids and _due(state):
        over = tournament.current_round
        claimed = Tournament.objects.filter(
            pk=tournament.pk, status=Tournament.Status.RUNNING, current_round=over
        ).update(current_round=over + 1)
        if not claimed:
            return None  # planned by someone else meanwhile
        number = tournament.current_round = over + 1
        ids = _round_insert(tournament=tournament, number=number, state=state)
    if not ids:
        # The bracket is decided: the rounds played are all it takes.
        Tournament.objects.filter(pk=tournament.pk).update(rounds=tournament.current_round)
        tournament_finish_if_done(tournament_id=tournament.pk)
        return None
    Tournament.objects.filter(pk=tournament.pk).update(planned=F("planned") + len(ids))
    matches_enqueue(match_ids=ids)
    logger.info("tournament %s: round %d planned, %d matches", tournament.pk, number, len(ids))
    return number
