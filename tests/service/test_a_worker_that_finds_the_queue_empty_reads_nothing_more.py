"""A worker's claim on an empty queue is one statement; a pick lost to another worker still looks again (PostgreSQL).

Every message left when the queue ran dry costs a worker one look (matches/claim.py):
the fair pick with its claim answers "nothing queued" by no row, and "lost" by a row of
NULLs, after which the worker reads the candidates afresh.  The race is made real: another
transaction holds the row the pick chooses, the claim waits on it, and the holder then
takes the match; the waiting claim must go on to the next match.
"""

from __future__ import annotations

import pytest

from tests.live.fixtures import LiveFactory
from tests.service.shells import owner_with_bots

pytestmark = pytest.mark.services

SHELL = (
    owner_with_bots(username="emptier", bots=2)
    + """
import json, threading
from django.db import connection, transaction
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.claim import match_claim_next
from tournaments.matches.models import Match
from tests.waiting import poll
t = tournament_create(owner=user, game_id="gamesup", name="empty", bot_ids=[b.id for b in bots], games_per_pairing=2)
tournament_start(tournament=t, user=user)
first, second = Match.objects.filter(tournament=t).order_by("index").values_list("id", flat=True)

# The race: another transaction holds the first match's row until the claim waits on it.
held, taken, result = threading.Event(), threading.Event(), {}
def holder():
    with transaction.atomic():
        Match.objects.select_for_update().filter(id=first).get()
        held.set()
        taken.wait(30)
        Match.objects.filter(id=first).update(status="running", worker="other", attempt=F("attempt") + 1)
    connection.close()
def claimer():
    claim = match_claim_next(worker="racer")
    result["claimed"] = claim.match_id if claim else None
    connection.close()
h = threading.Thread(target=holder); h.start(); held.wait(30)
c = threading.Thread(target=claimer); c.start()
def claim_waits():
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE %s",
                       ["%RECURSIVE owners%"])
        return cursor.fetchone()[0]
waited = bool(poll(claim_waits, 30, every=0.01))  # until the claim waits for the row lock
taken.set(); h.join(); c.join()

# The queue now empty: one statement, and no match.
Match.objects.filter(tournament=t, status="queued").update(status="running", worker="other", attempt=F("attempt") + 1)
with CaptureQueriesContext(connection) as ctx:
    empty = match_claim_next(worker="late")
print(json.dumps({"waited": waited, "claimed": result.get("claimed"), "first": first, "second": second,
                  "empty": empty is None, "statements": len(ctx.captured_queries)}))
"""
)


def test_an_empty_queue_costs_one_statement_and_a_lost_pick_looks_again(live_processes: LiveFactory) -> None:
    out = live_processes(tag="empty").shell(SHELL)
    assert out["waited"], "the claim never waited for the held row"
    assert out["claimed"] == out["second"], out  # lost the first, took the next
    assert out["empty"] and out["statements"] == 1, out
