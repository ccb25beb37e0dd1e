"""SQL statements the service spends on one match, from the claim to the recorded result.

Every worker pays them against the one shared database, so they bound how
many workers a database serves (docs/operations.md).  The test holds today's
count so it cannot creep up unnoticed; lower ``STATEMENTS_PER_MATCH`` as the
path gets shorter.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.service.test_tasks import needs_sandbox
from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches import tasks

# Transaction control (BEGIN/COMMIT/SAVEPOINT) is not counted: it costs a round trip
# but no planning or locking, and its count depends on the database backend.
# Among them: the claim's look at the runtimes a candidate's bots need (a worker
# without one leaves the match to another), and the ratings' count of the other
# owners each bot has met (leaderboards rank a bot only against enough of them).
STATEMENTS_PER_MATCH = 23


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


def _kind(sql: str) -> str:
    return sql.split(None, 1)[0].upper()


@needs_sandbox
@pytest.mark.django_db(transaction=True)
def test_a_rated_match_costs_a_bounded_number_of_statements(duel: Tournament) -> None:
    assert tasks.run_next() == "finished"  # unpacks both packages into this worker's cache
    with CaptureQueriesContext(connection) as ctx:
        assert tasks.run_next() == "finished"
    statements = [q["sql"] for q in ctx.captured_queries]
    counted = [sql for sql in statements if _kind(sql) not in {"BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "ROLLBACK"}]
    kinds = Counter(_kind(sql) for sql in counted)
    assert len(counted) <= STATEMENTS_PER_MATCH, (len(counted), kinds, counted)
    # The package is not fetched again: the worker's cache answers by checksum.
    assert not any("bots_botversion" in sql and '"package"' in sql for sql in counted)
    # Seats, ratings and changes are written in bulk: one statement each, whatever the seat count.
    assert kinds["INSERT"] == 1 and kinds["UPDATE"] <= 5, kinds
