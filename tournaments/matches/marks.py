"""Counts and times the recovery machinery keeps in the database (``RecoveryMark``), and their readers.

The sweeper notes each run (``sweep``) and each return after a gap
(``sweep_resumed``); it counts the leases it ends (``expired``).  Every
attempt the service ends and runs again is counted by cause
(``rerun:<cause>``).  Each worker process adds what its trash could not
delete and its trash thread's restarts (``trash_undeleted``,
``trash_restarts``, from ``workers.sandbox.trash``).  ``/healthz`` and
``/metrics`` read them: any process answers for the whole deployment.
"""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import F

from tournaments.matches.models import RecoveryMark
from workers.sandbox.trash import trash_counts

SWEEP, SWEEP_RESUMED, EXPIRED = "sweep", "sweep_resumed", "expired"
RERUN_PREFIX = "rerun:"
# Why an attempt was ended by the service and the match run again.
WORKER_LOST = "worker_lost"  # its lease expired: the worker died, froze or was cut off
DATABASE = "database"  # the worker could not reach the database
SLOT = "slot"  # no usable sandbox slot (busy uids, a slot group that would not empty)
OUTSIDE_KILL = "outside_kill"  # a bot process was killed by something other than the referee
WORKER = "worker"  # anything else wrong with the worker (its sandbox, its disk, a bug)
CAUSES = (WORKER_LOST, DATABASE, SLOT, OUTSIDE_KILL, WORKER)


def recovery_mark(*, name: str, add: int = 0, at: datetime | None = None) -> None:
    """Add ``add`` to the named mark and (if given) set its time, creating it when new."""
    fields: dict[str, object] = {"count": F("count") + add}
    if at is not None:
        fields["at"] = at
    if RecoveryMark.objects.filter(name=name).update(**fields):
        return
    try:
        with transaction.atomic():
            RecoveryMark.objects.create(name=name, count=add, at=at)
    except IntegrityError:  # made meanwhile by another process
        RecoveryMark.objects.filter(name=name).update(**fields)


def recovery_marks() -> dict[str, tuple[int, datetime | None]]:
    """Every mark: name -> (count, time)."""
    return {name: (count, at) for name, count, at in RecoveryMark.objects.values_list("name", "count", "at")}


def reruns_by_cause() -> dict[str, int]:
    """Attempts ended by the service and run again, per cause (every cause, zeros included)."""
    counts = dict.fromkeys(CAUSES, 0)
    for name, (count, _) in recovery_marks().items():
        if name.startswith(RERUN_PREFIX):
            counts[name[len(RERUN_PREFIX) :]] = count
    return counts


WORKER_PREFIX = "worker:"


def worker_health_note(*, worker: str, problems: list[str], at: datetime) -> None:
    """Record a worker's self-check: how many problems and which (none: it is fit)."""
    RecoveryMark.objects.update_or_create(
        name=(WORKER_PREFIX + worker)[:260], defaults={"count": len(problems), "at": at, "detail": "; ".join(problems)}
    )


def workers_unfit(*, since: datetime) -> dict[str, str]:
    """Workers whose last self-check, noted after ``since``, failed: node -> what is wrong."""
    rows = RecoveryMark.objects.filter(name__startswith=WORKER_PREFIX, count__gt=0, at__gte=since)
    return {name[len(WORKER_PREFIX) :]: detail for name, detail in rows.values_list("name", "detail")}


TRASH_UNDELETED, TRASH_RESTARTS = "trash_undeleted", "trash_restarts"
_TRASH_MARKS = {"undeleted": TRASH_UNDELETED, "restarts": TRASH_RESTARTS}
_trash_noted = dict.fromkeys(_TRASH_MARKS, 0)  # this process's counts already added


def trash_marks_note() -> None:
    """Add to the marks what this process's trash could not delete, and its restarts, since the last note."""
    counts = trash_counts()
    for key, name in _TRASH_MARKS.items():
        add = counts[key] - _trash_noted[key]
        if add:
            recovery_mark(name=name, add=add)
            _trash_noted[key] = counts[key]
