"""What an operator sees of recovery: /metrics counts it, /healthz notices a dead beat.

A worker is killed mid-match; its lease expires and the match runs again on
another: /metrics counts one lease expiry and one re-run for a lost worker.
Then beat (embedded in the scheduler) is stopped while matches still wait:
/healthz turns ``degraded`` once the last sweep is three intervals old, and
/metrics shows the sweep's age.
"""

from __future__ import annotations

import json
import signal
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.faults.harness import FAST_SETTINGS, Cluster, have_sandbox
from tests.live.fixtures import LiveFactory
from tests.waiting import wait_for

pytestmark = [pytest.mark.services, pytest.mark.slow]


@pytest.fixture
def cluster(live_processes: LiveFactory) -> Cluster:
    have_sandbox()
    # The web answers for the database and the broker; the sandbox is the workers' business here.
    env = {**FAST_SETTINGS, "ARBITER_HEALTH_SANDBOX": "0"}
    return live_processes(redis="private", env=env, supervise=True, tag="faults", set_class=Cluster)


def _metrics(cluster: Cluster) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    code, _, body = cluster.api().raw("GET", "/metrics")
    assert code == 200
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(body.decode())
        for s in family.samples
    }


def _health(cluster: Cluster) -> tuple[int, dict[str, Any]]:
    code, _, body = cluster.api().raw("GET", "/healthz")
    return code, json.loads(body)


def test_metrics_count_a_lost_worker_and_health_notices_a_dead_beat(cluster: Cluster) -> None:
    cluster.web()
    cluster.scheduler()
    cluster.worker("killed")
    cluster.wait_ready()
    t = cluster.tournament(bots=3, delay=0.3, games_per_pairing=2, max_plies=12)
    lost = wait_for(lambda: cluster.running_on(t["id"], "killed@main"), 90, "a match to start")
    cluster.wait_under_way(lost)  # killed mid-match
    cluster.signal("killed", signal.SIGKILL)
    cluster.worker("survivor", queues=[cluster.queue])  # matches only: beat's tasks stay with the scheduler
    wait_for(
        lambda: cluster.query("SELECT 1 FROM matches_match WHERE id = %s AND attempt >= 2", [lost[0]]),
        60,
        "the lost match to be taken again",
    )
    m = _metrics(cluster)
    assert m[("arbiter_lease_expiries_total", ())] >= 1
    assert m[("arbiter_match_reruns_total", (("cause", "worker_lost"),))] >= 1
    assert 0 <= m[("arbiter_sweep_age_seconds", ())] < 3 * 1.0 + 2
    code, body = _health(cluster)
    assert (code, body["status"], body["checks"]["sweeper"]["ok"]) == (200, "ok", True), body

    # Beat dies (and stays dead) while matches still wait or run.
    cluster.stop("scheduler", "killed")
    assert cluster.progress(t["id"]).get("finished", 0) < t["matches"], "the tournament ended too soon to tell"
    code, body = wait_for(lambda: (r := _health(cluster))[1]["status"] == "degraded" and r, 30, "/healthz degraded")
    assert code == 200 and body["checks"]["sweeper"]["ok"] is False
    assert "is beat running?" in body["checks"]["sweeper"]["detail"]
    assert _metrics(cluster)[("arbiter_sweep_age_seconds", ())] > 3
