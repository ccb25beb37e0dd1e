"""PostgreSQL goes away in the middle of a match and comes back, as in a restart.

The worker and the scheduler (beat, the sweeper) reach the database through
a forwarder the test controls; cutting it resets their connections and
refuses new ones, while the machine's PostgreSQL keeps serving everyone
else.  The match on the worker ends during the outage, longer than two
leases: the worker keeps renewing its lease and recording the result, with
backoff, until the database answers again; the sweeper, back from its own
outage, lets the lease run a full term before ending anything.  The result
is recorded under the attempt that claimed the match, and counts once.
"""

from __future__ import annotations

import time
from urllib.parse import urlparse

import pytest

from tests.faults.harness import Cluster
from tests.faults.tcpproxy import TcpProxy
from tests.waiting import wait_for

pytestmark = [pytest.mark.services, pytest.mark.slow]

OUTAGE_S = 10.0  # two and a half leases of the fault tests' short clocks


def _through(url: str, proxy: TcpProxy) -> str:
    parts = urlparse(url)
    user = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
    return parts._replace(netloc=f"{user}{proxy.address[0]}:{proxy.address[1]}").geturl()


def test_result_played_while_the_database_was_down_is_kept(cluster: Cluster) -> None:
    assert cluster.database_url
    server = urlparse(cluster.database_url)
    with TcpProxy(server.hostname or "127.0.0.1", server.port or 5432) as proxy:
        via = _through(cluster.database_url, proxy)
        cluster.worker("scheduler", queues=[f"{cluster.queue}.beat"], beat=True, database_url=via)
        cluster.worker("w1", database_url=via)
        cluster.wait_ready("scheduler", "w1")
        t = cluster.tournament(bots=3, delay=0.3, games_per_pairing=1, max_plies=12)
        assert t["matches"] == 3

        running = wait_for(lambda: cluster.running_on(t["id"], "w1@main"), 90, "a match to start")
        match_id, attempt, _ = running
        # Into the match; it needs a few more seconds, all of them during the outage.
        cluster.wait_under_way(running)
        proxy.cut()
        time.sleep(OUTAGE_S)  # the fault's length: the database is unreachable for OUTAGE_S
        # Nobody could write meanwhile: the match is still running under its first attempt.
        assert cluster.query("SELECT status, attempt FROM matches_match WHERE id = %s", [match_id]) == [
            ("running", attempt)
        ]
        restored_at = cluster.scalar("SELECT clock_timestamp()")
        proxy.restore()

        cluster.wait_finished(t["id"], 180)
    matches = cluster.assert_counted_once(t["id"], 3)
    # Recorded under the attempt that claimed it: the match was neither lost nor run again.
    assert matches[match_id][1] == attempt == 1
    log = cluster.log("w1")
    assert f"match {match_id} attempt {attempt}: database unavailable" in log, "the match did not end in the outage"
    assert f"match {match_id} attempt {attempt}: recorded after" in log
    assert "lease renewal failed" in log
    assert "sweeper: back after" in cluster.log("scheduler") + log
    finished_at = cluster.scalar("SELECT finished_at FROM matches_match WHERE id = %s", [match_id])
    assert (finished_at - restored_at).total_seconds() < 60, "the result was not recorded soon after the outage"
    seats = cluster.query(
        "SELECT DISTINCT s.status FROM matches_matchseat s JOIN matches_match m ON m.id = s.match_id "
        "WHERE m.tournament_id = %s",
        [t["id"]],
    )
    assert {s for (s,) in seats} == {"ok"}, "a seat was charged for the service's outage"
    cluster.assert_rebuild_agrees()
