"""A worker whose temp dir is full takes no matches, says so, and burns no attempts.

The worker's temp dir (``TMPDIR`` and the sandbox's copy dir) is a 1 MiB
tmpfs filled to the last byte.  Every match it took would fail at once as
a service error; instead it fails its self-check before claiming, gives each
message back, and reports itself in /healthz (``degraded``, with why) and
/metrics.  No match is claimed, none is ERRORED; a healthy worker started
later plays them all.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.ci import need
from tests.faults.harness import FAST_SETTINGS, Cluster, have_sandbox
from tests.live import celery_argv
from tests.live.fixtures import LiveFactory
from tests.waiting import wait_for

pytestmark = [pytest.mark.services, pytest.mark.slow]


@pytest.fixture
def full_dir(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs with no byte left."""
    need(os.geteuid() == 0, "mounting a small tmpfs needs root")
    mount = tmp_path / "full"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=1777", "tmpfs", str(mount)], check=True)
    try:
        (mount / "runtime").mkdir()
        with contextlib.suppress(OSError), open(mount / "filler", "wb") as f:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.fixture
def cluster(live_processes: LiveFactory) -> Cluster:
    have_sandbox()
    env = {**FAST_SETTINGS, "ARBITER_HEALTH_SANDBOX": "0", "ARBITER_WORKER_CHECK_EVERY_S": "5"}
    return live_processes(redis="private", env=env, supervise=True, tag="faults", set_class=Cluster)


def _health(cluster: Cluster) -> dict[str, Any]:
    code, _, body = cluster.api().raw("GET", "/healthz")
    assert code == 200, body
    return json.loads(body)


def test_worker_with_a_full_temp_dir_takes_no_match(cluster: Cluster, full_dir: Path) -> None:
    cluster.web()
    cluster.scheduler()
    env = {**cluster.env(), "TMPDIR": str(full_dir), "ARBITER_SANDBOX_DIR": str(full_dir / "runtime")}
    argv = celery_argv("worker", node="broken@main", concurrency=1, queues=[cluster.queue], schedule=None)
    cluster.spawn("broken", argv, kind="worker", env=env, supervise=True)
    cluster.wait_ready()
    t = cluster.tournament(bots=2, delay=0.1, games_per_pairing=4, max_plies=8)
    assert t["matches"] == 4

    body = wait_for(
        lambda: (h := _health(cluster))["checks"]["workers"]["ok"] is False and h, 60, "/healthz to name the worker"
    )
    assert body["status"] == "degraded"
    assert "broken@main: temp space: " in body["checks"]["workers"]["detail"]
    # It keeps giving the messages back (a pause each), and claims nothing.
    wait_for(lambda: cluster.log("broken").count("failed its self-check") >= 3, 60, "messages given back")
    assert cluster.query(
        "SELECT status, attempt, count(*) FROM matches_match WHERE tournament_id = %s GROUP BY 1, 2", [t["id"]]
    ) == [("queued", 0, 4)]
    code, _, metrics = cluster.api().raw("GET", "/metrics")
    assert code == 200
    unfit = [
        s
        for family in text_string_to_metric_families(metrics.decode())
        for s in family.samples
        if s.name == "arbiter_worker_unfit"
    ]
    assert [s.labels["worker"] for s in unfit] == ["broken@main"] and "temp space" in unfit[0].labels["problem"]

    cluster.worker("good", queues=[cluster.queue])
    cluster.wait_finished(t["id"], 180)
    matches = cluster.assert_counted_once(t["id"], 4)
    assert {attempt for _, attempt, _ in matches.values()} == {1}, "an attempt was burnt"
    assert "broken@main" not in str(cluster.query("SELECT worker FROM matches_match"))
    cluster.assert_rebuild_agrees()
