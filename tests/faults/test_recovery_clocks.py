"""Lost workers under the default lease, heartbeat and sweep clocks (not the fault tests' short ones).

- One worker is killed with SIGKILL in the middle of a match and the pool
  process of another is frozen (SIGSTOP) past the lease: each lost match is
  played again by a third worker and finishes within 60 s of the fault plus
  its own length (the service's promise, docs/operations.md).
- A worker frozen for 15 s, less than a lease, keeps its match: it finishes
  under the attempt that claimed it and no seat is charged for the pause.
"""

from __future__ import annotations

import os
import signal
import time
from datetime import datetime
from typing import Any

import pytest

from tests.faults.harness import FAST_SETTINGS, Cluster, have_sandbox
from tests.live.fixtures import LiveFactory
from tests.waiting import wait_for

pytestmark = [pytest.mark.services, pytest.mark.slow]

# Everything of the fault tests' settings but the recovery clocks, which keep their defaults.
DEFAULT_CLOCKS = {
    **FAST_SETTINGS,
    "ARBITER_LEASE_S": None,
    "ARBITER_HEARTBEAT_S": None,
    "ARBITER_SWEEP_EVERY_S": None,
}
PROMISE_S = 60  # a lost match finishes again within this long after the fault, plus its own length


@pytest.fixture
def cluster(live_processes: LiveFactory) -> Cluster:
    have_sandbox()
    return live_processes(redis="private", env=DEFAULT_CLOCKS, supervise=True, tag="faults", set_class=Cluster)


def _now(cluster: Cluster) -> datetime:
    return cluster.scalar("SELECT clock_timestamp()")


def _seat_statuses(cluster: Cluster, tournament_id: int) -> set[str]:
    rows = cluster.query(
        "SELECT DISTINCT s.status FROM matches_matchseat s JOIN matches_match m ON m.id = s.match_id "
        "WHERE m.tournament_id = %s",
        [tournament_id],
    )
    return {s for (s,) in rows}


def _finished_again(cluster: Cluster, match_id: int, fault_at: datetime) -> dict[str, Any]:
    """Wait for the lost match's new attempt to finish; how long after the fault, and how long it ran."""
    row = wait_for(
        lambda: cluster.query(
            "SELECT finished_at, claimed_at FROM matches_match WHERE id = %s AND status = 'finished' AND attempt >= 2",
            [match_id],
        ),
        PROMISE_S + 60,
        f"match {match_id} to be played again and finish",
    )[0]
    finished_at, claimed_at = row
    return {
        "after_fault_s": (finished_at - fault_at).total_seconds(),
        "own_s": (finished_at - claimed_at).total_seconds(),
    }


def test_killed_and_frozen_workers_lose_their_matches_within_a_minute(cluster: Cluster) -> None:
    cluster.scheduler()
    for name in ("killed", "frozen"):
        cluster.worker(name)
    cluster.worker("survivor", concurrency=2)
    cluster.wait_ready("scheduler", "killed", "frozen", "survivor")
    t = cluster.tournament(bots=4, delay=0.3, games_per_pairing=1, max_plies=12)
    assert t["matches"] == 6

    killed = wait_for(lambda: cluster.running_on(t["id"], "killed@main"), 90, "the first worker to start a match")
    frozen = wait_for(lambda: cluster.running_on(t["id"], "frozen@main"), 30, "the second worker to start a match")
    for running in (killed, frozen):
        cluster.wait_under_way(running)
    fault_at = _now(cluster)
    cluster.signal("killed", signal.SIGKILL)
    frozen_pid = int(frozen[2].rsplit(":", 1)[1])
    os.kill(frozen_pid, signal.SIGSTOP)
    try:
        times = {m: _finished_again(cluster, m, fault_at) for m, _, _ in (killed, frozen)}
    finally:
        os.kill(frozen_pid, signal.SIGCONT)
    print("recovery after the fault:", times)
    for match_id, took in times.items():
        assert took["after_fault_s"] <= PROMISE_S + took["own_s"], (match_id, took)

    cluster.wait_finished(t["id"], 180)
    matches = cluster.assert_counted_once(t["id"], 6)
    for match_id, _, _ in (killed, frozen):
        # Played again (a slot the killed worker's bots still held may cost the new attempt one more try).
        assert matches[match_id][1] >= 2
    assert _seat_statuses(cluster, t["id"]) == {"ok"}, "a seat was charged for a lost worker"
    cluster.assert_rebuild_agrees()


def test_worker_frozen_for_less_than_a_lease_keeps_its_match(cluster: Cluster) -> None:
    cluster.scheduler()
    cluster.worker("w1")
    cluster.wait_ready("scheduler", "w1")
    t = cluster.tournament(bots=2, delay=0.3, games_per_pairing=2, max_plies=12)
    assert t["matches"] == 2

    running = wait_for(lambda: cluster.running_on(t["id"], "w1@main"), 90, "a match to start")
    match_id, attempt, worker = running
    cluster.wait_under_way(running)  # the bots have started and are moving
    pid = int(worker.rsplit(":", 1)[1])
    os.kill(pid, signal.SIGSTOP)
    try:
        time.sleep(15)  # the fault's length: frozen for 15 s, less than a lease (30 s)
    finally:
        os.kill(pid, signal.SIGCONT)

    cluster.wait_finished(t["id"], 120)
    matches = cluster.assert_counted_once(t["id"], 2)
    assert matches[match_id][1] == attempt == 1, "the paused worker lost its match"
    assert _seat_statuses(cluster, t["id"]) == {"ok"}, "a seat was charged for the worker's pause"
    cluster.assert_rebuild_agrees()
