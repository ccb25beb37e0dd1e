"""SQL statements the service spends on one rated match: the worker's own, then the ratings' applier's.

Every worker pays them against the one shared database, so they bound how
many workers a database serves (docs/operations.md).  The tests hold today's
counts so they cannot creep up unnoticed.

Counted in the worker's thread (``tasks.run_next``, a warm package cache; on
PostgreSQL): the fair pick of the queue, claimed with the referee's inputs in
the same statement; the record: the match under the claiming attempt, its
seats, the kind's hooks (one more to the tournament's count of ended
matches and a read of its plan, instead of the tournament's row lock and a
look for matches in play; its performance table's refit request, the
table's row known to this process from its previous match).  The pool's applier (``tournaments/ratings/applier.py``)
runs inside the same recording transaction when the pool is free (from its
lock to clearing ``rating_pending``) or as a task when it is not; its
statements are counted on their own.  Not counted: the heartbeat thread's
renewal (one UPDATE every ``ARBITER_HEARTBEAT_S``) and cancel look (one read
by primary key every ``ARBITER_CANCEL_CHECK_S``), which cost per second of
play rather than per match.  Transaction control (BEGIN/COMMIT/SAVEPOINT) is
not counted: it costs a round trip but no planning or locking, and its count
depends on the backend.
"""

from __future__ import annotations

from collections import Counter

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.live.fixtures import LiveFactory
from tests.service.test_tasks import needs_sandbox
from tournaments.competitions.models import Tournament
from tournaments.matches import tasks

# On PostgreSQL (production): the worker's own per rated match, and the applier's for one match
# applied alone (a busy pool's applier takes many per transaction, for the same 7: all are per batch).
WORKER_STATEMENTS = 6
APPLIER_STATEMENTS = 7
# SQLite, the embedded default, takes five more: the pick and the claim apart (no UPDATE in a CTE),
# the match and its seats read before they are written.
SQLITE_EXTRA = 5

CONTROL = {"BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "ROLLBACK"}

# The same against the live set's PostgreSQL, from a shell: the statements as JSON.
PG_COUNT = """
import json
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from kit import REFERENCE_BOTS
from tournaments.bots.services import bot_create
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.games.services import game_sync
from tournaments.matches import tasks
game_sync()
settings.ARBITER_RUN_LOOP_S = 0  # one match per call, as a message per match runs it
package = (REFERENCE_BOTS / "random_bot.py").read_bytes()
owners = [get_user_model().objects.create_user(username=n, password=n + "-pass-1") for n in ("ann", "ben")]
bots = [bot_create(owner=o, game_id="gamesup", name="b" + o.username, package=package,
                   filename="random_bot.py").bot for o in owners]
t = tournament_create(owner=owners[0], game_id="gamesup", name="t", bot_ids=[b.id for b in bots],
                      games_per_pairing=3, move_ms=2000, game_ms=20000, startup_ms=10000)
tournament_start(tournament=t, user=owners[0])
assert tasks.run_next() == "finished"
with CaptureQueriesContext(connection) as ctx:
    assert tasks.run_next() == "finished"
control = {"BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "ROLLBACK"}
counted = [q["sql"][:200] for q in ctx.captured_queries if q["sql"].split(None, 1)[0].upper() not in control]
print(json.dumps(counted))
"""


def _counted(statements: list[str]) -> list[str]:
    return [sql for sql in statements if sql.split(None, 1)[0].upper() not in CONTROL]


def _split(statements: list[str]) -> tuple[list[str], list[str]]:
    """(the worker's own, the applier's): the applier's run from its lock (or, on SQLite, its
    read of the pending matches) to clearing the matches' ``rating_pending``."""
    first = next(
        i for i, sql in enumerate(statements) if "advisory_xact_lock" in sql or "WHERE rating_pending AND" in sql
    )
    last = next(i for i, sql in enumerate(statements) if sql.startswith('UPDATE "matches_match" SET "rating_pending"'))
    return statements[:first] + statements[last + 1 :], statements[first : last + 1]


@needs_sandbox
@pytest.mark.django_db(transaction=True)
def test_a_rated_match_costs_a_bounded_number_of_statements_on_sqlite(duel_of_three: Tournament) -> None:
    assert tasks.run_next() == "finished"  # unpacks both packages into this worker's cache
    with CaptureQueriesContext(connection) as ctx:
        assert tasks.run_next() == "finished"
    counted, applier = _split(_counted([q["sql"] for q in ctx.captured_queries]))
    kinds = Counter(sql.split(None, 1)[0].upper() for sql in counted)
    assert len(counted) <= WORKER_STATEMENTS + SQLITE_EXTRA, (len(counted), kinds, counted)
    # The package is not fetched again: the worker's cache answers by checksum.
    assert not any("bots_botversion" in sql and '"package"' in sql for sql in counted)
    # No rating row is read or written outside the applier's run.
    assert not any("ratings_" in sql for sql in counted), counted
    assert len(applier) <= APPLIER_STATEMENTS, applier


@needs_sandbox
@pytest.mark.services
@pytest.mark.django_db(transaction=False)
def test_a_rated_match_costs_a_bounded_number_of_statements_on_postgresql(live_processes: LiveFactory) -> None:
    worker, applier = _split(live_processes(tag="statements").shell(PG_COUNT))
    assert len(worker) <= WORKER_STATEMENTS, (len(worker), worker)
    assert not any("ratings_" in sql for sql in worker), worker
    assert len(applier) <= APPLIER_STATEMENTS, (len(applier), applier)
