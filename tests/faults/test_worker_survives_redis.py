"""Redis goes away again and again while workers hold matches: no worker exits, and all carry on after.

Nothing is supervised here, so an exit stays visible.  Each worker has two
slots and at most one match: a free slot (a BRPOP waiting) next to a match
delivered but not acked is the state in which kombu's Redis transport ended
the worker with ``AttributeError: 'NoneType' object has no attribute
'hostname'`` as it closed the lost connection (see RedisChannel in workers/celery_app.py).
"""

from __future__ import annotations

import time

import pytest

from tests.faults.harness import FAST_SETTINGS, Cluster, have_sandbox
from tests.live.fixtures import LiveFactory
from tests.waiting import wait_for

pytestmark = [pytest.mark.services, pytest.mark.slow]

# Twice is "again": each outage so far caught all three workers with a match and a slot free (12 of 12 in four
# outages), and every round costs a match's length (about 14 s).
OUTAGES = 2
OUTAGE_S = 3
WORKERS = ("w1", "w2", "w3")
# What Celery's consumer logs once it has dropped a lost connection and tries a new one.
RECONNECTING = "consumer: Cannot connect to"


@pytest.fixture
def cluster(live_processes: LiveFactory) -> Cluster:
    have_sandbox()
    return live_processes(redis="private", env=FAST_SETTINGS, supervise=False, tag="faults", set_class=Cluster)


def _exited(cluster: Cluster) -> list[str]:
    return [name for name, proc in cluster.procs.items() if name != "redis" and proc.exited()]


def _three_long_matches(cluster: Cluster, name: str) -> int:
    """A tournament of three matches of about 12 s each; its id."""
    t = cluster.tournament(bots=3, delay=1.0, games_per_pairing=1, max_plies=12, name=name)
    assert t["matches"] == 3
    return int(t["id"])


def _lone_matches(cluster: Cluster, tournament_id: int) -> int:
    """Workers running exactly one match of the tournament (so with a slot free)."""
    rows = cluster.query(
        "SELECT split_part(worker, ':', 1), count(*) FROM matches_match "
        "WHERE tournament_id = %s AND status = 'running' GROUP BY 1",
        [tournament_id],
    )
    return sum(1 for _, count in rows if count == 1)


def test_workers_live_through_repeated_redis_outages(cluster: Cluster) -> None:
    cluster.scheduler()
    cluster.beat_worker("maintenance")
    for name in WORKERS:
        cluster.worker(name, queues=[cluster.queue], concurrency=2)
    cluster.wait_ready()

    exposed = 0  # outages x workers caught with a match running and a slot free
    for n in range(OUTAGES):
        t = _three_long_matches(cluster, f"outage{n}")
        wait_for(lambda t=t: cluster.progress(t).get("running", 0) >= 2, 120, "running matches")
        exposed += _lone_matches(cluster, t)
        mark = cluster.log_mark()
        cluster.kill("redis")
        time.sleep(OUTAGE_S)  # the fault's length: Redis stays away OUTAGE_S
        # Every worker has lost its connection and closed it: it is trying to connect again.
        wait_for(
            lambda mark=mark: all(RECONNECTING in cluster.log_since(mark, name) for name in WORKERS),
            60,
            "every worker to try a new connection",
        )
        cluster.restart("redis")  # empty: the dispatcher sends what the broker lost again
        cluster.wait_finished(t, 180)
        cluster.assert_counted_once(t, 3)  # each tournament's organiser has a pool of their own
        # A worker that gives up says so at once, then waits for its running match before it exits.
        assert "Unrecoverable error" not in cluster.log(), f"a worker gave up in outage {n + 1}: {cluster.logs}"
        assert not _exited(cluster), f"exited in outage {n + 1}: {_exited(cluster)}; logs in {cluster.logs}"
    print(f"{OUTAGES} Redis outages, {exposed} times a worker held one match with a slot free")
    assert exposed, "no worker ever had a slot free next to a running match: the test proved nothing"

    # After the last outage the workers still take new matches, every message of them (no outage to outlast:
    # short ones do).
    t = cluster.tournament(bots=3, delay=0.2, games_per_pairing=1, max_plies=12, name="after")["id"]
    cluster.wait_finished(t, 180)
    cluster.assert_counted_once(t, 3)
    assert not _exited(cluster), f"exited: {_exited(cluster)}; logs in {cluster.logs}"
    cluster.assert_rebuild_agrees()
