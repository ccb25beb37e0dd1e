"""A worker keeps its database connections from match to match.

Celery's Django fixup used to close them after every task, so each match
opened a new PostgreSQL session for its task and another for its heartbeat
thread (181 claims, 180 backends).  With ``CELERY_DB_REUSE_MAX`` set and one
heartbeat thread per process, a worker playing a dozen matches opens a
handful of sessions in all.  PostgreSQL counts the sessions opened on each
database (``pg_stat_database.sessions``); the test watches through one
connection of its own.
"""

from __future__ import annotations

import psycopg
import pytest

from tests.faults.harness import Cluster
from tests.waiting import wait_for

pytestmark = [pytest.mark.services]

MATCHES = 12


def test_a_worker_keeps_its_database_connections_from_match_to_match(cluster: Cluster) -> None:
    t = cluster.tournament(bots=4, delay=0.0, games_per_pairing=2, max_plies=12)
    assert t["matches"] == MATCHES
    assert cluster.database_url
    with psycopg.connect(cluster.database_url, autocommit=True) as conn:

        def sessions() -> int:
            row = conn.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()").fetchone()
            assert row is not None
            return int(row[0])

        def finished() -> bool:
            row = conn.execute("SELECT status FROM competitions_tournament WHERE id = %s", [t["id"]]).fetchone()
            return row is not None and row[0] != "running"

        before = sessions()
        cluster.worker("w1", concurrency=1)
        wait_for(finished, 180, "the tournament to finish", every=0.5)
        opened = sessions() - before
    # The worker's main process, its pool process's tasks and its heartbeat thread: a few, not two per match.
    assert opened <= MATCHES // 2, f"{opened} sessions for {MATCHES} matches"
    cluster.assert_counted_once(t["id"], MATCHES)
