"""Tournaments played in rounds (Swiss, knockouts): round 1 at the start, each next round once the one before is over.

A round is planned exactly once: whoever plans it first moves the
tournament's ``current_round`` on with a conditional UPDATE (``WHERE
current_round = <the round just over>``) and inserts its matches in the same
transaction, so two workers recording the round's last two matches at once,
or a worker and the beat's sweep, cannot both plan it; if that transaction
fails, the claim goes with it and the sweep plans the round later.

The next round is planned by the recording of the current round's last
match (the tournament kind's ``tallied`` hook, when the tournament's count of
ended matches reaches its plan, inside the recording transaction, in a
savepoint so that a failed plan never loses the result),
and by ``tournaments_rounds_advance``, the beat's sweep, in case the process
that recorded that match died between its commit and the plan.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import F, Max

from engines import get_engine
from tournaments.competitions.models import Tournament, TournamentRound
from tournaments.competitions.selectors.rounds import ROUND_FORMATS, round_open, swiss_field
from tournaments.competitions.services.endings import tournament_finish_if_done, tournament_matches_ended
from tournaments.competitions.services.knockouts import KNOCKOUT_FORMATS, knockout_round_next
from tournaments.competitions.services.limits import queue_check
from tournaments.competitions.services.seeding import participants_seed
from tournaments.competitions.services.tournaments import tournament_match_config
from tournaments.competitions.swiss import SwissPairingError, swiss_pair, swiss_rounds_default, swiss_rounds_most
from tournaments.matches.life import Lineup, matches_create, matches_enqueue
from tournaments.matches.models import Match
from tournaments.matches.seeds import seed_draw

logger = logging.getLogger(__name__)


def swiss_start(*, tournament: Tournament) -> list[int]:
    """Seed the field by rating, settle the number of rounds and insert round 1; returns its match ids.

    Called by ``tournament_start`` inside its transaction, holding the
    tournament's lock; the caller enqueues the matches and sets ``planned``.
    The seeds are the participants' numbers from here on (services/seeding.py).
    """
    seeded = participants_seed(tournament=tournament)
    count = len(seeded)
    rounds = min(tournament.rounds or swiss_rounds_default(count), swiss_rounds_most(count))
    if tournament.rounds > rounds:
        logger.warning("tournament %s: %d bots play %d rounds, not %d", tournament.pk, count, rounds, tournament.rounds)
    tournament.rounds = rounds
    Tournament.objects.filter(pk=tournament.pk).update(rounds=rounds)
    if count < 2:
        return []
    if not tournament.owner.is_staff:
        queue_check(owner_id=tournament.owner_id, adding=(count // 2) * tournament.games_per_pairing)
    claimed = Tournament.objects.filter(pk=tournament.pk, current_round=0).update(current_round=1)
    if not claimed:
        return []
    tournament.current_round = 1
    return _round_insert(tournament=tournament, number=1)


def _round_insert(*, tournament: Tournament, number: int) -> list[int]:
    """Pair round ``number`` from the results so far and insert its matches (not enqueued); returns their ids.

    Each pairing plays ``games_per_pairing`` games, seats swapped each game,
    the first of them with the seats the pairing chose.
    """
    field = swiss_field(tournament=tournament)
    paired = swiss_pair(field.players, round_number=number)
    last = Match.objects.filter(tournament=tournament).aggregate(last=Max("index"))["last"]
    first_index = 0 if last is None else last + 1
    versions = field.versions
    lineups: list[Lineup] = []
    for a, b in paired.pairs:
        for game in range(tournament.games_per_pairing):
            order = (versions[a], versions[b]) if game % 2 == 0 else (versions[b], versions[a])
            lineups.append(Lineup(versions=order, seed=seed_draw(), index=first_index + len(lineups)))
    teams = get_engine(tournament.game_id).teams(tournament.seats, tournament.options)
    ids = matches_create(config=tournament_match_config(tournament=tournament, teams=teams), lineups=lineups)
    TournamentRound.objects.create(
        tournament=tournament,
        number=number,
        first_index=first_index,
        size=len(ids),
        bye_id=None if paired.bye is None else versions[paired.bye],
    )
    return ids


def tournament_round_next(*, tournament_id: int) -> int | None:
    """Plan the next round if the current one is over, or finish after the last; the round planned, or None."""
    with transaction.atomic():
        tournament = Tournament.objects.select_related("owner").filter(pk=tournament_id).first()
        if tournament is None or tournament.status != Tournament.Status.RUNNING:
            return None
        if tournament.format not in ROUND_FORMATS or round_open(tournament=tournament):
            return None
        if tournament.format in KNOCKOUT_FORMATS:
            return knockout_round_next(tournament=tournament)
        if tournament.current_round >= tournament.rounds:
            tournament_finish_if_done(tournament_id=tournament_id)
            return None
        over = tournament.current_round
        number = over + 1
        claimed = Tournament.objects.filter(
            pk=tournament_id, status=Tournament.Status.RUNNING, current_round=over
        ).update(current_round=number)
        if not claimed:
            return None  # planned by someone else meanwhile
        tournament.current_round = number
        try:
            ids = _round_insert(tournament=tournament, number=number)
        except SwissPairingError:
            # Only withdrawals can leave a field that cannot be paired (the rounds are capped): stop here.
            logger.exception(
                "tournament %s: round %d cannot be paired; it ends after round %d", tournament_id, number, over
            )
            ids = []
        if not ids:
            Tournament.objects.filter(pk=tournament_id).update(rounds=over, current_round=over)
            tournament_finish_if_done(tournament_id=tournament_id)
            return None
        Tournament.objects.filter(pk=tournament_id).update(planned=F("planned") + len(ids))
        matches_enqueue(match_ids=ids)
    logger.info("tournament %s: round %d planned, %d matches", tournament_id, number, len(ids))
    return number


def tournament_matches_tallied(match: Match, ended: int) -> None:
    """The tournament kind's ``tallied`` hook: at the plan, a round robin's finish or a Swiss's next round.

    Runs last in the recording transaction, holding the tournament's count of
    ended matches (``tournament_matches_ended`` says when the plan is reached
    and takes the tournament's row).  The round is planned in a savepoint: if
    that fails, the result is still recorded and the beat's sweep plans it.
    """
    tournament_matches_ended(match, ended, in_rounds=_round_next_kept)


def _round_next_kept(tournament_id: int) -> None:
    try:
        with transaction.atomic():
            tournament_round_next(tournament_id=tournament_id)
    except Exception:  # anything: the result must stand; the beat's sweep tries the round again
        logger.exception("tournament %s: the next round was not planned; the sweep will", tournament_id)


def tournament_after_cancelled(*, tournament_id: int) -> None:
    """Some of the tournament's matches were cancelled outside a recording: the next Swiss round, or the finish."""
    if Tournament.objects.filter(pk=tournament_id, format__in=list(ROUND_FORMATS)).exists():
        tournament_round_next(tournament_id=tournament_id)
    else:
        tournament_finish_if_done(tournament_id=tournament_id)


def tournaments_rounds_advance() -> list[int]:
    """The beat's sweep: plan the next round of every running tournament whose round is over; their ids."""
    running = Tournament.objects.filter(status=Tournament.Status.RUNNING, format__in=list(ROUND_FORMATS))
    planned = []
    for tournament_id in running.order_by("id").values_list("id", flat=True):
        if tournament_round_next(tournament_id=tournament_id) is not None:
            planned.append(tournament_id)
    return planned
