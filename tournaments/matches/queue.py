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

from collections.abc import Collection, Iterator, Sequence
from typing import Any, NamedTuple

from django.conf import settings
from django.db import connection

from tournaments.matches.models import Match

# One statement for the whole order.  First the matches that jump the queue (lost to the
# service, or raised by staff).  Then the owners with queued work, found with one index step
# each (a "loose index scan": neither database has a skip scan), each owner's next match, when
# the owner was last served and how many of their matches run; an owner at the share
# ("running + 1 > share x slots" is "running >= floor(share x slots)" without floor(), which
# SQLite may lack) is held back, last, while an owner under it waits.  Last the service's own
# (the ladder's).  Each part is numbered in its own order; the parts keep theirs.
CANDIDATE_CTES = """
WITH RECURSIVE owners(owner_id) AS (
    SELECT min(owner_id) FROM matches_match WHERE status = 'queued'
    UNION ALL
    SELECT (SELECT min(m.owner_id) FROM matches_match m WHERE m.status = 'queued' AND m.owner_id > owners.owner_id)
    FROM owners WHERE owners.owner_id IS NOT NULL
),
turns AS (
    SELECT
        o.owner_id,
        (SELECT h.id FROM matches_match h WHERE h.status = 'queued' AND h.owner_id = o.owner_id {skip_h}
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
),
heads AS (
    SELECT head, at_share AND EXISTS (SELECT 1 FROM waiting w WHERE NOT w.at_share) AS held, served, owner_id
    FROM waiting
),
jumpers AS (
    SELECT j.id FROM matches_match j
    WHERE j.status = 'queued' AND (j.attempt > 0 OR j.priority > 0) {skip_j}
    ORDER BY j.priority DESC, j.attempt DESC, j.id LIMIT %s
),
service AS (
    SELECT l.id FROM matches_match l WHERE l.status = 'queued' AND l.owner_id IS NULL {skip_l}
    ORDER BY l."index", l.id LIMIT %s
)
"""
# The fair order itself, one row per candidate: (part, place, id, held).
CANDIDATE_ROWS = """
    SELECT 0 AS part, row_number() OVER (ORDER BY m.priority DESC, m.attempt DESC, m.id) AS place,
        m.id AS id, FALSE AS held
    FROM jumpers JOIN matches_match m ON m.id = jumpers.id
    UNION ALL
    SELECT 1, row_number() OVER (ORDER BY held, served IS NOT NULL, served, owner_id), head, held
    FROM (SELECT * FROM heads ORDER BY held, served IS NOT NULL, served, owner_id LIMIT %s) AS fair
    UNION ALL
    SELECT 2, row_number() OVER (ORDER BY m."index", m.id), m.id, FALSE
    FROM service JOIN matches_match m ON m.id = service.id
"""
# The part of CANDIDATE_ROWS that holds the service's (the ladder's) matches.
_SERVICE_PART = 2


# Candidates taken from each part of the order per look.
OWNERS = 4


class Candidate(NamedTuple):
    """A queued match a free worker may try to claim.

    ``held``: its owner is at their share while an owner under it waits; the
    worker takes it only when it can run none of the others (matches/claim.py).
    ``service``: a ladder match, which a worker that just lost a race for
    someone's match never takes (that work may still wait; it looks again).
    """

    id: int
    held: bool = False
    service: bool = False


def queue_candidates(
    *, owners: int = OWNERS, skip: Collection[int] = (), share: float | None = None
) -> Iterator[Candidate]:
    """Queued matches in the order a free worker should try to claim them.

    One statement: a worker usually claims the first.  Ids may repeat or be taken by someone
    else meanwhile; the claim decides.
    ``skip``: matches this worker cannot play (each owner's next match is then the one after).
    ``share``: the most of the slots one owner holds while others wait (default ``ARBITER_OWNER_SHARE``).
    """
    share = settings.ARBITER_OWNER_SHARE if share is None else share
    skipped = sorted(skip)
    rows_sql = "SELECT id, held, part FROM (" + CANDIDATE_ROWS + ") AS c ORDER BY part, place"
    sql = candidates_sql(skipped=len(skipped)) + rows_sql
    with connection.cursor() as cursor:
        # The placeholders in the order they appear: heads' skip, the share, jumpers' skip and
        # limit, the service's skip and limit, the fair part's limit.
        cursor.execute(sql, candidates_params(skipped=skipped, share=share, owners=owners))
        rows = cursor.fetchall()
    return iter([Candidate(match_id, bool(held), part == _SERVICE_PART) for match_id, held, part in rows])


def candidates_sql(*, skipped: int) -> str:
    """The WITH list of the fair order, with ``skipped`` placeholders for matches to pass over."""
    marks = ", ".join(["%s"] * skipped)
    return CANDIDATE_CTES.format(
        **{f"skip_{alias}": f"AND {alias}.id NOT IN ({marks})" if skipped else "" for alias in "hjl"}
    )


def candidates_params(*, skipped: Sequence[int], share: float, owners: int) -> list[Any]:
    """The parameters of ``candidates_sql`` then ``CANDIDATE_ROWS``, in the order they appear."""
    # Heads' skip, the share, jumpers' skip and limit, the service's skip and limit, the fair part's limit.
    return [*skipped, float(share), *skipped, owners, *skipped, owners, owners]


def queued_count() -> int:
    """How many matches wait to be claimed."""
    return Match.objects.filter(status=Match.Status.QUEUED).count()
