"""Which queued match runs next: a fair share between the people whose work waits.

The broker only says *that* there is work (one ``run_next`` message per queued
match); the database says *which* match a free worker takes, at the moment it
takes it, in this order:

1. matches that ran and were lost to the service (a dead worker, a database
   restart): they go first, so a fault costs a match one match's time;
2. matches staff raised in priority (a tournament's ``priority``), highest first;
3. everyone else's, one owner at a time: the owner served least recently goes
   first, so a user with one match waits at most for the matches already
   running, however many another user has queued; within an owner, matches go
   in schedule order across their tournaments (every tournament's k-th game
   before any tournament's k+1-th).  An owner who already holds their share of
   the slots (below) is passed over while an owner under it waits;
4. the ladder's matches (the service's own, with no owner) when nobody else waits:
   a worker that lost a race for someone's match looks again rather than take
   one, since the winner's owner, or another, may have more queued.

**The share.**  Taking turns per claim is not enough when one owner's matches
are long: every slot a short match frees goes round the owners again, and the
slots that long matches hold never come back, so that owner ends up holding
them all.  The machine's slots are the matches running now plus the one being
claimed (a worker process that is free takes work at once while matches wait,
so when somebody waits this counts every worker process of every machine); an
owner holding ``max(1, floor(ARBITER_OWNER_SHARE x slots))`` running matches
or more is at their share.  Such an owner's matches are held back while an
owner under the share has a match queued; alone in the queue (the ladder does
not count), an owner still takes every free slot.  A worker that can run none
of the waiting owners' matches (it lacks their runtime) takes a held-back one
rather than stay idle; one that lost a waiting owner's match to another worker
looks again instead, since that owner may have more.  Nothing running is stopped: an
owner who took every slot while alone gives them up one by one as their
matches end.  Two workers claiming at the same instant may both pass the same
owner, so the share can be passed by a match or two for as long as those run.

Every step reads an index (``Match.Meta.indexes``), so the cost depends on the
number of owners with queued work, not on the number of queued matches.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import NamedTuple

from django.conf import settings
from django.db import connection
from django.db.models import Q

from tournaments.matches.models import Match

# Owners with queued work, found with one index step each (a "loose index scan": neither
# database has a skip scan), then each owner's next match, when the owner was last served and
# how many of their matches run.  An owner at the share ("running + 1 > share x slots" is
# "running >= floor(share x slots)" without floor(), which SQLite may lack) is held back, last,
# while an owner under it waits.
_OWNERS_SQL = """
WITH RECURSIVE owners(owner_id) AS (
    SELECT min(owner_id) FROM matches_match WHERE status = 'queued'
    UNION ALL
    SELECT (SELECT min(m.owner_id) FROM matches_match m WHERE m.status = 'queued' AND m.owner_id > owners.owner_id)
    FROM owners WHERE owners.owner_id IS NOT NULL
),
turns AS (
    SELECT
        o.owner_id,
        (SELECT h.id FROM matches_match h WHERE h.status = 'queued' AND h.owner_id = o.owner_id {skip}
         ORDER BY h."index", h.id LIMIT 1) AS head,
        (SELECT max(c.claimed_at) FROM matches_match c WHERE c.owner_id = o.owner_id) AS served,
        (SELECT count(*) FROM matches_match r WHERE r.status = 'running' AND r.owner_id = o.owner_id) AS running
    FROM owners o
    WHERE o.owner_id IS NOT NULL
),
waiting AS (
    SELECT owner_id, head, served,
        running >= 1 AND running + 1 > %s * (SELECT count(*) + 1 FROM matches_match WHERE status = 'running')
            AS at_share
    FROM turns
    WHERE head IS NOT NULL
)
SELECT head, at_share AND EXISTS (SELECT 1 FROM waiting w WHERE NOT w.at_share) AS held
FROM waiting
ORDER BY held, served IS NOT NULL, served, owner_id LIMIT %s
"""


class Candidate(NamedTuple):
    """A queued match a free worker may try to claim.

    ``held``: its owner is at their share while an owner under it waits; the
    worker takes it only when it can run none of the others (matches/life.py).
    ``service``: a ladder match, which a worker that just lost a race for
    someone's match never takes (that work may still wait; it looks again).
    """

    id: int
    held: bool = False
    service: bool = False


def queue_candidates(*, owners: int = 4, skip: Collection[int] = (), share: float | None = None) -> Iterator[Candidate]:
    """Queued matches in the order a free worker should try to claim them.

    Lazy: a worker usually claims the first and never runs the later queries.
    Ids may repeat or be taken by someone else meanwhile; the claim decides.
    ``skip``: matches this worker cannot play (each owner's next match is then the one after).
    ``share``: the most of the slots one owner holds while others wait (default ``ARBITER_OWNER_SHARE``).
    """
    share = settings.ARBITER_OWNER_SHARE if share is None else share
    skipped = sorted(skip)
    jumpers = (
        Match.objects.filter(status=Match.Status.QUEUED)
        .exclude(id__in=skipped)
        .filter(Q(attempt__gt=0) | Q(priority__gt=0))
        .order_by("-priority", "-attempt", "id")
        .values_list("id", flat=True)[:owners]
    )
    yield from (Candidate(match_id) for match_id in jumpers)
    with connection.cursor() as cursor:
        skip_sql = f"AND h.id NOT IN ({', '.join(['%s'] * len(skipped))})" if skipped else ""
        cursor.execute(_OWNERS_SQL.format(skip=skip_sql), [*skipped, float(share), owners])
        heads = [Candidate(head, bool(held)) for head, held in cursor.fetchall()]
    yield from heads
    service = (
        Match.objects.filter(status=Match.Status.QUEUED, owner__isnull=True)
        .exclude(id__in=skipped)
        .order_by("index", "id")
        .values_list("id", flat=True)[:owners]
    )
    yield from (Candidate(match_id, service=True) for match_id in service)


def queued_count() -> int:
    """How many matches wait to be claimed."""
    return Match.objects.filter(status=Match.Status.QUEUED).count()
