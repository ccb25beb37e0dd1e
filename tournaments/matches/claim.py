"""Claiming a queued match: the fairest one this worker can run, and what its referee needs, in one go.

::

    queue_candidates (matches/queue.py: one statement, the fair order)
          │
    match_claim_next ─► _claim: QUEUED → RUNNING, attempt + 1, a conditional UPDATE (one winner),
                        returning the match and its seats' packages: the referee's MatchSpec
          │               (PostgreSQL: one statement; SQLite, the embedded default: three)
          └─ the bots need a runtime this worker lacks ─► given back, QUEUED as before, noted waiting

Why the match is claimed before its runtimes are looked at: a look first cost a
statement per candidate for every match, while a worker lacking a runtime is
the rare case; giving the match back costs that worker one statement more.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F

from tournaments.dbclock import db_now
from tournaments.matches.models import Match, MatchSeat
from tournaments.matches.queue import CANDIDATE_ROWS, OWNERS, candidates_params, candidates_sql, queue_candidates
from tournaments.prepared import prepared_cursor
from workers.match import BotRef, Clock, MatchSpec
from workers.packages.build import BUILT_FILENAME
from workers.sandbox.runtimes import runtimes_missing

logger = logging.getLogger(__name__)

# Rounds of candidates a worker tries before it gives its message up (others keep winning).
CLAIM_ROUNDS = 20

# The claim and the referee's inputs in one round trip (PostgreSQL): the UPDATE's RETURNING
# joined with the seats and their packages, one row per seat, stamped by the server's clock
# (tournaments/dbclock.py).
_CLAIMED = """
claimed AS (
    UPDATE matches_match
    SET status = 'running', attempt = attempt + 1, worker = %s,
        claimed_at = STATEMENT_TIMESTAMP(), heartbeat_at = STATEMENT_TIMESTAMP()
    WHERE id = {target} AND status = 'queued'
    RETURNING id, attempt, game_id, options, seed, seats, move_ms, game_ms, startup_ms
)
"""
_CLAIMED_ROWS = """
SELECT c.id, c.attempt, c.game_id, c.options, c.seed, c.seats, c.move_ms, c.game_ms, c.startup_ms,
    s.bot_version_id, v.checksum, v.filename, v.command, b.checksum
FROM claimed c
JOIN matches_matchseat s ON s.match_id = c.id
JOIN bots_botversion v ON v.id = s.bot_version_id
LEFT JOIN bots_botbuild b ON b.version_id = v.id
ORDER BY s.seat
"""
_CLAIM_SQL = "WITH " + _CLAIMED.format(target="%s") + _CLAIMED_ROWS
# The first of the fair order (matches/queue.py) claimed in the same statement: the pick, the
# claim and the referee's inputs in one round trip.  Lost to another worker: one row of NULLs,
# and the worker goes through the candidates one by one.  Nothing queued: no row, and nothing
# more to read (a worker's last look of a run, once per message left when the queue is empty).
_CLAIM_FIRST_SQL = (
    candidates_sql(skipped=0)
    + ", pick AS (SELECT id FROM ("
    + CANDIDATE_ROWS
    + ") AS c ORDER BY part, place LIMIT 1),"
    + _CLAIMED.format(target="(SELECT id FROM pick)")
    + "("
    + _CLAIMED_ROWS
    + ") UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL\n"
    + "FROM pick WHERE NOT EXISTS (SELECT 1 FROM claimed)\n"
)

_SEATS = ("bot_version_id", "bot_version__checksum", "bot_version__filename", "bot_version__command")


class Claim(NamedTuple):
    """A match this worker holds: its id, the attempt that holds it, and what the referee needs."""

    match_id: int
    attempt: int
    spec: MatchSpec


def _json(value: Any) -> Any:
    # A raw cursor may hand JSON columns over as text (Django's psycopg set-up) or decoded.
    return json.loads(value) if isinstance(value, str) else value


def _spec(match: Sequence[Any], seats: Iterable[Sequence[Any]]) -> MatchSpec:
    """The MatchSpec from (id, game, options, seed, seats, move, game, start-up ms) and each seat's package.

    A built version is played from its built archive (bots.selectors.bot_version_package).
    """
    match_id, game_id, options, seed, seat_count, move_ms, game_ms, startup_ms = match
    return MatchSpec(
        match_id=str(match_id),
        engine_id=game_id,
        options=dict(_json(options)),
        seed=seed,
        seats=seat_count,
        clock=Clock(move_ms=move_ms, game_ms=game_ms, startup_ms=startup_ms),
        bots=tuple(
            BotRef(
                version_id=v,
                checksum=built or c,
                filename=BUILT_FILENAME if built else f,
                command=tuple(_json(cmd) or []),
            )
            for v, c, f, cmd, built in seats
        ),
    )


def _claim_rows(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    # Run for every match on PostgreSQL alone: planned once per connection (tournaments/prepared.py).
    with prepared_cursor() as cursor:
        cursor.execute(sql, params)
        rows: list[tuple[Any, ...]] = cursor.fetchall()
    return rows


def _claim_of(rows: list[tuple[Any, ...]]) -> Claim | None:
    """The claim in a claim statement's rows (one per seat); None for none, or the lost pick's row of NULLs."""
    if not rows or rows[0][0] is None:
        return None
    first = rows[0]
    spec = _spec((first[0], *first[2:9]), (row[9:14] for row in rows))
    return Claim(match_id=first[0], attempt=first[1], spec=spec)


def _claim_postgresql(*, match_id: int, worker: str) -> Claim | None:
    return _claim_of(_claim_rows(_CLAIM_SQL, [worker[:200], match_id]))


def _claim_orm(*, match_id: int, worker: str) -> Claim | None:
    now = db_now()
    with transaction.atomic():
        claimed = Match.objects.filter(id=match_id, status=Match.Status.QUEUED).update(
            status=Match.Status.RUNNING, attempt=F("attempt") + 1, worker=worker[:200], claimed_at=now, heartbeat_at=now
        )
        if not claimed:
            return None
        # Still inside the transaction: the row is ours until commit.
        match = Match.objects.values_list(
            "attempt", "id", "game_id", "options", "seed", "seats", "move_ms", "game_ms", "startup_ms"
        ).get(id=match_id)
    seats = (
        MatchSeat.objects.filter(match_id=match_id)
        .order_by("seat")
        .values_list(*_SEATS, "bot_version__build__checksum")
    )
    return Claim(match_id=match_id, attempt=match[0], spec=_spec(match[1:], seats))


def match_claim_spec(*, match_id: int, worker: str) -> Claim | None:
    """Take a queued match for this worker, with what its referee needs; None if someone else has it.

    The waiting note (``match_note_waiting``) stays on the row: a match given back
    keeps its first note's time, and recording the match clears it (``matches.life``).
    """
    if connection.vendor == "postgresql":
        return _claim_postgresql(match_id=match_id, worker=worker)
    return _claim_orm(match_id=match_id, worker=worker)


def match_claim(*, match_id: int, worker: str) -> int | None:
    """Take a queued match for this worker; returns the attempt number, or None if someone else has it."""
    claimed = match_claim_spec(match_id=match_id, worker=worker)
    return claimed.attempt if claimed is not None else None


def _give_back(*, claim: Claim, runtimes: Iterable[str]) -> None:
    """Queue a match this worker cannot run again, as before its claim, and note what it waits for.

    The first note's time stays: the sweeper ends a match that waited
    ``ARBITER_RUNTIME_WAIT_S`` (``matches.recovery``).  A match cancelled
    meanwhile stays cancelled (the UPDATE is conditional on this attempt).
    """
    Match.objects.filter(id=claim.match_id, status=Match.Status.RUNNING, attempt=claim.attempt).update(
        status=Match.Status.QUEUED, attempt=F("attempt") - 1, worker=""
    )
    match_note_waiting(match_id=claim.match_id, runtimes=runtimes)


def match_claim_next(*, worker: str) -> Claim | None:
    """Take the fairest queued match this worker can run (matches/queue.py); None when none is left.

    Workers racing for the same match: the losers look again (the winner's
    match is no longer queued), so a message never goes unused while work waits.
    A match whose bots need a runtime this worker lacks (``workers.sandbox.runtimes``) is
    given back to another worker.  A match held back by its owner's share is taken only
    when this worker can run none of the others, and a ladder match never right after
    losing a race for someone's match (that owner may have more queued; matches/queue.py).
    """
    if connection.vendor == "postgresql":
        share, owners = settings.ARBITER_OWNER_SHARE, OWNERS
        params = [*candidates_params(skipped=[], share=share, owners=owners), worker[:200]]
        rows = _claim_rows(_CLAIM_FIRST_SQL, params)
        if not rows:
            return None  # nothing queued
        first = _claim_of(rows)
        if first is not None:
            if not runtimes_missing([list(bot.command) for bot in first.spec.bots]):
                return first
            _leave(claim=first, worker=worker)
            return _claim_next(worker=worker, skipped={first.match_id})
        # The pick lost to another worker: the candidates below are read afresh, after the
        # winner's claim: the winner's owner's next match comes before the ladder's, as a
        # loser of a race in the loop below looks again.
    return _claim_next(worker=worker, skipped=set())


def _leave(*, claim: Claim, worker: str) -> None:
    """Give back a match whose bots need a runtime this worker lacks (played here it would be a crash)."""
    missing = runtimes_missing([list(bot.command) for bot in claim.spec.bots])
    logger.info("worker %s leaves match %s: no %s here", worker, claim.match_id, ", ".join(sorted(missing)))
    _give_back(claim=claim, runtimes=missing)


def _claim_next(*, worker: str, skipped: set[int]) -> Claim | None:
    """The candidates one by one (``skipped``: matches this worker cannot run)."""
    for _ in range(CLAIM_ROUNDS):
        seen = lost = False
        for match_id, held, service in queue_candidates(skip=skipped):
            seen = True
            if (held or service) and lost:
                # An owner lost a match to another worker and may have more queued: look again
                # rather than give the slot to an owner holding their share, or to the ladder.
                break
            claim = match_claim_spec(match_id=match_id, worker=worker)
            if claim is None:
                lost = True
                continue
            if not runtimes_missing([list(bot.command) for bot in claim.spec.bots]):
                return claim
            # Left queued for a worker that has the runtime; the next round looks past it.
            _leave(claim=claim, worker=worker)
            skipped.add(match_id)
        if not seen:
            return None
    logger.warning(
        "worker %s lost %d claim rounds in a row; its message goes back to the dispatcher", worker, CLAIM_ROUNDS
    )
    return None


def match_note_waiting(*, match_id: int, runtimes: Iterable[str]) -> None:
    """Note that a queued match waits for a worker with ``runtimes`` (shown by the API and /healthz).

    The first note's time stays: the sweeper ends a match that waited ``ARBITER_RUNTIME_WAIT_S``.
    """
    Match.objects.filter(id=match_id, status=Match.Status.QUEUED, waiting_for="").update(
        waiting_for=", ".join(sorted(runtimes))[:60], waiting_since=db_now()
    )
