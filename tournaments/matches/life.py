"""A match's life, from its row to its consequences.

::

    matches_create ─► QUEUED ─► matches_enqueue (on commit: one run_next message per match)
                                   │
    match_claim_next (matches/claim.py: the fairest queued match, matches/queue.py:
                      QUEUED → RUNNING, attempt + 1; a conditional UPDATE: one winner)
                                   │
    match_heartbeat (renews the lease while the worker plays)   matches_cancel ─► CANCELLED
                                   │                              (queued or running: the worker
                                   │                               stops the bots, records nothing)
    match_record_result ─► FINISHED          match_record_error ─► QUEUED again, or ERRORED
                                   │                                      │
                                   └──────────── consequences ────────────┘

A result or an error is written only while the match is RUNNING under the
attempt that claimed it, and its rating changes are applied once (the
applier clears the match's ``rating_pending`` in the transaction that
applies them), so a redelivered or re-run match never counts twice.  The worker side of a run
(packages, the referee, the heartbeat thread) is ``matches.runner``; the
sweeper and the dispatcher, which recover lost work, are ``matches.recovery``.

The consequences of a match that ended (finished, or errored for good), in
this order (``matches.record``):

1. its rating changes, for a rated result: the match is recorded pending and
   the pool's applier is tried in the recording transaction without
   waiting; when another run holds the pool, the applier task is asked for
   after commit (``ratings/applier.py``), so no worker waits for another's
   rating rows;
2. its competition's ``ended`` hook, in the recording transaction: the
   version test recounted and topped up;
3. last in that transaction, a tournament match adds one to its
   tournament's count of ended matches (``matches.tally``) and the
   competition's ``tallied`` hook compares it with the plan: the tournament
   may be finished (no tournament row is locked to record a match);
4. after commit, the competition's ``committed`` hook: the tournament's
   performance table is asked for a refit, the ladder tops itself up.

Ratings and competitions sit above matches, so they register their hooks
when their apps start (``ratings/apps.py``; ``competitions/apps.py``, per
``Match.Kind``) in ``matches.hooks`` instead of being imported here.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet

from engines import get_engine
from tournaments.dbclock import db_now
from tournaments.matches.bulk import rows_insert
from tournaments.matches.hooks import match_ratings
from tournaments.matches.models import Match, MatchSeat
from tournaments.matches.tally import tally_add
from tournaments.matches.tasks import matches_wake_task, run_next
from workers.match import Clock

logger = logging.getLogger(__name__)

# Up to this many messages are sent by the committing process itself; more, by a task.
WAKE_INLINE = 50


# -- creating and enqueueing ----------------------------------------------------------


@dataclass(frozen=True)
class MatchConfig:
    """What every match of one batch shares: the game, its seats and teams, the pool, the clock, the owner."""

    kind: str
    game_id: str
    options: dict[str, Any]
    seats: int
    teams: list[list[int]]
    rating_pool: str
    rated: bool
    clock: Clock
    owner_id: int | None  # whose work it is (None: the service's own, the ladder)
    tournament_id: int | None = None
    priority: int = 0


@dataclass(frozen=True)
class Lineup:
    """One match of a batch: the bot version of each team (team order), its seed and its place in the series."""

    versions: tuple[int, ...]
    seed: int
    index: int = 0


def matches_create(*, config: MatchConfig, lineups: Sequence[Lineup]) -> list[int]:
    """Insert QUEUED matches and their seats, in batches; returns their ids, in the lineups' order.

    Every kind of match (round robin, ladder, challenge, version test) is made
    here; the caller enqueues them after commit.  The rows go in through
    ``matches.bulk`` (a 200-bot round robin is 59,700 rows).
    """
    engine_version = get_engine(config.game_id).version
    lineup_versions = [lu.versions for lu in lineups]
    shared = match_ratings().unrated_lineups(config.rating_pool, lineup_versions) if config.rated else set()
    template = Match(
        kind=config.kind,
        tournament_id=config.tournament_id,
        owner_id=config.owner_id,
        priority=config.priority,
        game_id=config.game_id,
        engine_version=engine_version,
        options=config.options,
        seats=config.seats,
        rating_pool=config.rating_pool,
        move_ms=config.clock.move_ms,
        game_ms=config.clock.game_ms,
        startup_ms=config.clock.startup_ms,
    )
    ids = rows_insert(
        template=template,
        varying={
            "index": [lineup.index for lineup in lineups],
            "seed": [lineup.seed for lineup in lineups],
            "rated": [config.rated and position not in shared for position in range(len(lineups))],
        },
    )
    places = [(team, seat) for team, team_seats in enumerate(config.teams) for seat in team_seats]
    rows_insert(
        template=MatchSeat(),
        varying={
            "match_id": [match_id for match_id in ids for _ in places],
            "seat": [seat for _ in ids for _, seat in places],
            "team": [team for _ in ids for team, _ in places],
            "bot_version_id": [lineup.versions[team] for lineup in lineups for team, _ in places],
        },
    )
    return ids


def matches_wake(*, count: int) -> int:
    """Send ``count`` run_next messages now; returns how many were sent (0 when the broker is down).

    A message names no match: the worker that takes it claims the fairest
    queued one (matches/queue.py).  Never raises: a message not sent now is
    sent by the dispatcher (matches/recovery.py), which keeps one per queued match.
    """
    sent = 0
    try:
        # One producer (and connection) for the whole batch: a big round robin announces thousands.
        with run_next.app.producer_or_acquire() as producer:
            for _ in range(count):
                run_next.apply_async(queue=settings.CELERY_TASK_DEFAULT_QUEUE, producer=producer)
                sent += 1
    except Exception:
        logger.warning("the broker took %d of %d run_next messages; the dispatcher sends the rest", sent, count)
    return sent


def matches_enqueue(*, match_ids: Sequence[int]) -> None:
    """Once the current transaction commits, make sure a worker comes for each of these matches.

    The database says what must run, the broker only says when: a worker must
    never be woken before the rows exist.  Many matches at once (a big round
    robin) are announced by a task on the short-task queue, so the request
    that made them stays short.
    """
    count = len(match_ids)
    if count == 0:
        return
    if count <= WAKE_INLINE:
        transaction.on_commit(lambda: matches_wake(count=count))
    else:
        transaction.on_commit(lambda: _wake_later(count))


def _wake_later(count: int) -> None:
    try:
        matches_wake_task.apply_async(args=(count,), queue=settings.ARBITER_BEAT_QUEUE)
    except Exception:  # the broker is down: the dispatcher sends them once it is back
        logger.warning("could not ask for %d run_next messages; the dispatcher sends them", count)


# -- holding ---------------------------------------------------------------------------


def match_cancelled(*, match_id: int) -> bool:
    """Whether the match was cancelled: its worker then stops the bots at once (one read by primary key)."""
    return Match.objects.filter(id=match_id, status=Match.Status.CANCELLED).exists()


def match_state(*, match_id: int) -> tuple[str | None, int | None]:
    """The match's status and attempt (one read by primary key); (None, None) when it is gone."""
    row = Match.objects.filter(id=match_id).values_list("status", "attempt").first()
    return (row[0], row[1]) if row is not None else (None, None)


def match_heartbeat(*, match_id: int, attempt: int) -> bool:
    """Renew this attempt's lease; False when the match is no longer this attempt's.

    A worker that stops renewing (killed, cut off) loses the match to the
    sweeper once the lease is older than ``ARBITER_LEASE_S`` (``matches.recovery``).
    """
    return bool(
        Match.objects.filter(id=match_id, status=Match.Status.RUNNING, attempt=attempt).update(heartbeat_at=db_now())
    )


def matches_cancel(*, matches: QuerySet[Match], at: datetime | None = None) -> int:
    """Cancel those of ``matches`` that are queued or running; returns how many.  Never rated, never a forfeit.

    A running one is cancelled under whatever attempt holds it: its worker sees
    that within ``ARBITER_CANCEL_CHECK_S`` (``matches.runner``), kills the bots
    and records nothing, and any late write of that attempt is refused (every
    write is conditional on RUNNING).  The caller either holds the competition's
    row locked before the matches (as a recording does: tournaments), or holds
    no competition row at all (a recording locks its match, then the row).
    ``at``: the finish time to stamp (default: the database's now).
    """
    # Locked first (a match being recorded is waited for, then left alone) so that each
    # tournament's count of ended matches (matches.tally) gets exactly those cancelled here.
    open_ = matches.filter(status__in=[Match.Status.QUEUED, Match.Status.RUNNING])
    with transaction.atomic():
        # A dict: a filter through the seats may name a match once per seat.
        rows = dict(open_.select_for_update(of=("self",)).values_list("id", "tournament_id"))
        if not rows:
            return 0
        Match.objects.filter(id__in=list(rows)).update(
            status=Match.Status.CANCELLED, finished_at=at if at is not None else db_now()
        )
        tally_add(counts=Counter(rows.values()))
    return len(rows)
