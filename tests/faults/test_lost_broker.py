"""The broker loses every message in the middle of a tournament.

Our own redis-server (nothing saved to disk) is killed while matches are
queued and running, and started again empty on the same port.  Workers and
beat reconnect; the queued matches have no message any more, and the
dispatcher, which trusts the database rather than the broker, sends them
again.  The tournament completes and every match counts exactly once.
"""

from __future__ import annotations

import time

import pytest

from tests.faults.harness import FAST_SETTINGS, ONE_MATCH_PER_MESSAGE, Cluster, have_sandbox
from tests.live.fixtures import LiveFactory
from tests.waiting import wait_for

pytestmark = [pytest.mark.services, pytest.mark.slow]


@pytest.fixture
def cluster(live_processes: LiveFactory) -> Cluster:
    """The faults' set (tests/faults/conftest.py), its workers taking one match per message."""
    have_sandbox()
    env = {**FAST_SETTINGS, **ONE_MATCH_PER_MESSAGE}
    return live_processes(redis="private", env=env, supervise=True, tag="faults", set_class=Cluster)


def test_redis_restarted_empty_mid_tournament(cluster: Cluster) -> None:
    t = cluster.tournament(bots=4, delay=0.05, games_per_pairing=2, double=True, max_plies=12)
    assert t["matches"] == 24
    cluster.scheduler()
    cluster.worker("w1", concurrency=2)
    cluster.worker("w2", concurrency=2)

    wait_for(lambda: cluster.progress(t["id"]).get("finished", 0) >= 4, 120, "four finished matches")
    cluster.kill("redis")
    lost = cluster.progress(t["id"]).get("queued", 0)
    time.sleep(1.5)  # the fault's length: the broker is down for 1.5 s before it comes back empty
    cluster.restart("redis")
    mark = cluster.log_mark()
    # Workers reconnect at once and declare their queues' bindings again: what must be gone is the messages.
    assert cluster.redis_command("LLEN", cluster.queue) == ":0", "the broker came back with messages"
    assert lost > 0, "every match had already been taken: the broker lost nothing"

    cluster.wait_finished(t["id"], 180)
    cluster.assert_counted_once(t["id"], 24)
    # (Every worker consumes the beat queue too, so any of them may have run the dispatcher.)
    assert "message(s) waiting: sent" in cluster.log_since(mark), "the tournament finished without the dispatcher"
    cluster.assert_rebuild_agrees()
