"""Workers that die or stall in the middle of a match.

Three workers play a small round robin of slow bots.  One is killed with
SIGKILL in the middle of a match (nothing of it is left to clean up); the
pool process of another is frozen with SIGSTOP in the middle of its match.
Their leases expire, the sweeper re-queues both matches, the third worker
plays them.  The frozen one is then thawed: it finishes its old attempt,
and its result is dropped and logged.  Every match counts exactly once.
"""

from __future__ import annotations

import os
import signal

import pytest

from tests.faults.harness import Cluster
from tests.waiting import wait_for

pytestmark = [pytest.mark.services, pytest.mark.slow]


def test_killed_and_stalled_workers_lose_their_matches_to_another(cluster: Cluster) -> None:
    cluster.scheduler()
    for name in ("killed", "stalled", "survivor"):
        cluster.worker(name)
    # Everyone is listening before the matches are sent, so each worker takes one at once.
    cluster.wait_ready("killed", "stalled", "survivor")
    t = cluster.tournament(bots=3, delay=0.15, games_per_pairing=2, max_plies=12)
    assert t["matches"] == 6

    killed = wait_for(lambda: cluster.running_on(t["id"], "killed@main"), 90, "the first worker to start a match")
    stalled = wait_for(lambda: cluster.running_on(t["id"], "stalled@main"), 30, "the second worker to start a match")
    for running in (killed, stalled):  # both into their moves (a match takes about two seconds)
        cluster.wait_under_way(running)
    cluster.signal("killed", signal.SIGKILL)
    stalled_pid = int(stalled[2].rsplit(":", 1)[1])  # the lease names host:pid of the pool process
    os.kill(stalled_pid, signal.SIGSTOP)
    try:
        # Both leases expire; the survivor plays both matches again under a new attempt.
        for match_id, _, _ in (killed, stalled):
            wait_for(
                lambda m=match_id: cluster.query(
                    "SELECT 1 FROM matches_match WHERE id = %s AND status = 'finished' AND attempt >= 2", [m]
                ),
                120,
                f"match {match_id} to be played again and finish",
            )
    finally:
        os.kill(stalled_pid, signal.SIGCONT)
    # The stalled process wakes up, ends its old attempt and tries to record it: dropped, and said so.
    dropped = f"dropping result of match {stalled[0]} attempt {stalled[1]}"
    wait_for(lambda: dropped in cluster.log("stalled"), 60, f"'{dropped}' in the stalled worker's log")

    cluster.wait_finished(t["id"], 120)
    matches = cluster.assert_counted_once(t["id"], 6)
    for match_id, _, _ in (killed, stalled):
        assert matches[match_id][1] == 2, "re-run exactly once"
        reason = cluster.scalar("SELECT worker FROM matches_match WHERE id = %s", [match_id])
        assert reason.startswith("survivor@main:")
    assert "lease expired" in cluster.log()
    # An expired lease is never a forfeit: every seat of every match was played out.
    statuses = cluster.query(
        "SELECT DISTINCT s.status FROM matches_matchseat s JOIN matches_match m ON m.id = s.match_id "
        "WHERE m.tournament_id = %s",
        [t["id"]],
    )
    assert {s for (s,) in statuses} <= {"ok", "timeout"}
    cluster.assert_rebuild_agrees()
