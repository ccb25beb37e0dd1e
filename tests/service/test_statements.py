"""SQL statements the service spends on one rated match: the worker's path, then the ratings' applier.

Every worker pays them against the one shared database, so they bound how
many workers a database serves (docs/operations.md).  The tests hold today's
counts so they cannot creep up unnoticed.

What is counted, per match, in the worker's thread (``tasks.run_next``, a warm
package cache): the fair pick of the queue, the claim with the referee's
inputs, the record (the match and its seats under the claiming attempt, the
kind's hooks: is the tournament done, its performance table's refit
request).  Not in it: the heartbeat thread's renewal (one UPDATE every
``ARBITER_HEARTBEAT_S``) and cancel look (one read by primary key every
``ARBITER_CANCEL_CHECK_S``), which cost per second of play rather than per
match, and the rating changes, applied afterwards by the pool's applier
(``tournaments/ratings/applier.py``), counted on their own below.
Transaction control (BEGIN/COMMIT/SAVEPOINT) is not counted: it costs a round
trip but no planning or locking, and its count depends on the backend.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.live.fixtures import LiveFactory
from tests.service.test_tasks import needs_sandbox
from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches import tasks
from tournaments.ratings.applier import ratings_apply_all

# On PostgreSQL (production): the worker's path per rated match, and the applier's per match
# applied alone (a busy pool's applier takes many per transaction: fewer each).
WORKER_STATEMENTS = 0
APPLIER_STATEMENTS = 0
# SQLite, the embedded default, takes three more for the claim (no UPDATE ... RETURNING in a CTE).
SQLITE_EXTRA = 2

CONTROL = {"BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "ROLLBACK"}

# The same two steps against the live set's PostgreSQL, from a shell: the counts as JSON.
PG_COUNT = """
import json
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from kit import REFERENCE_BOTS
from tournaments.bots.services import bot_create
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.games.services import game_sync
from tournaments.matches import tasks
from tournaments.ratings.applier import ratings_apply_all

game_sync()
package = (REFERENCE_BOTS / "random_bot.py").read_bytes()
owners = [get_user_model().objects.create_user(username=n, password=n + "-pass-1") for n in ("ann", "ben")]
bots = [bot_create(owner=o, game_id="gamesup", name="b" + o.username, package=package,
                   filename="random_bot.py").bot for o in owners]
t = tournament_create(owner=owners[0], game_id="gamesup", name="t", bot_ids=[b.id for b in bots],
                      games_per_pairing=3, move_ms=2000, game_ms=20000, startup_ms=10000)
tournament_start(tournament=t, user=owners[0])
assert tasks.run_next() == "finished"
ratings_apply_all()
with CaptureQueriesContext(connection) as worker:
    assert tasks.run_next() == "finished"
with CaptureQueriesContext(connection) as applier:
    assert ratings_apply_all() == 1
control = {"BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "ROLLBACK"}
def counted(ctx):
    return [q["sql"][:200] for q in ctx.captured_queries if q["sql"].split(None, 1)[0].upper() not in control]
print(json.dumps({"worker": counted(worker), "applier": counted(applier)}))
open("/tmp/wt32b-pg.json", "w").write(json.dumps({"worker": counted(worker), "applier": counted(applier)}, indent=1))
"""


def _counted(ctx: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in ctx.captured_queries if q["sql"].split(None, 1)[0].upper() not in CONTROL]


@pytest.fixture
def duel(user: Any, other: Any, make_bot: Any) -> Tournament:
    bots = [make_bot(), make_bot(owner=other)]
    tournament = tournament_create(
        owner=user,
        game_id="gamesup",
        name="t",
        bot_ids=[b.id for b in bots],
        games_per_pairing=3,
        move_ms=2000,
        game_ms=20000,
        startup_ms=10000,
    )
    return tournament_start(tournament=tournament, user=user)


@needs_sandbox
@pytest.mark.django_db(transaction=True)
def test_a_rated_match_costs_a_bounded_number_of_statements_on_sqlite(duel: Tournament) -> None:
    assert tasks.run_next() == "finished"  # unpacks both packages into this worker's cache
    ratings_apply_all()
    with CaptureQueriesContext(connection) as worker:
        assert tasks.run_next() == "finished"
    with CaptureQueriesContext(connection) as applier:
        assert ratings_apply_all() == 1
    counted = _counted(worker)
    kinds = Counter(sql.split(None, 1)[0].upper() for sql in counted)
    assert len(counted) <= WORKER_STATEMENTS + SQLITE_EXTRA, (len(counted), kinds, counted)
    # The package is not fetched again: the worker's cache answers by checksum.
    assert not any("bots_botversion" in sql and '"package"' in sql for sql in counted)
    # No rating row is read or written by the worker: the applier's alone.
    assert not any("ratings_" in sql for sql in counted), counted
    assert len(_counted(applier)) <= APPLIER_STATEMENTS, _counted(applier)


@needs_sandbox
@pytest.mark.services
@pytest.mark.django_db(transaction=False)
def test_a_rated_match_costs_a_bounded_number_of_statements_on_postgresql(live_processes: LiveFactory) -> None:
    counts = live_processes(tag="statements").shell(PG_COUNT)
    worker, applier = counts["worker"], counts["applier"]
    assert len(worker) <= WORKER_STATEMENTS, (len(worker), worker)
    assert not any("ratings_" in sql for sql in worker), worker
    assert len(applier) <= APPLIER_STATEMENTS, (len(applier), applier)
