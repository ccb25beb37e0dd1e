"""Workers on several hosts, and one host cut off the network mid-tournament.

Three network namespaces made here stand for three machines on one LAN (a
bridge inside the database host's namespace, veth pairs to the others):
the database host serves PostgreSQL and Redis at 10.213.N.1 (a forwarder
listening only inside that namespace, connecting to the real servers), and
two worker hosts at .11 and .12 run one Celery worker each, with their own
package cache.  The 10.x addresses exist only inside these namespaces.
While a match runs on the second host, its link goes down: its lease
expires, the first host plays the match again, the tournament completes and
everything counts once.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.ci import need
from tests.faults.harness import Cluster
from tests.live.services import with_database
from tests.waiting import wait_for

pytestmark = [pytest.mark.services, pytest.mark.slow]

PROXY = Path(__file__).with_name("nsproxy.py")


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


class Lan:
    """A database host and two worker hosts in network namespaces of their own."""

    def __init__(self) -> None:
        tag = uuid.uuid4().hex[:5]
        self.db = f"arb{tag}db"
        self.hosts = [f"arb{tag}h1", f"arb{tag}h2"]
        self.links = [f"ve{tag}h1", f"ve{tag}h2"]  # the host end of each veth pair
        self.net = f"10.213.{random.randrange(256)}"
        self.db_address = f"{self.net}.1"
        self.proxy: subprocess.Popen | None = None

    def up(self) -> None:
        for ns in (self.db, *self.hosts):
            ip("netns", "add", ns)
            ip("-n", ns, "link", "set", "lo", "up")
        ip("-n", self.db, "link", "add", "br0", "type", "bridge")
        ip("-n", self.db, "addr", "add", f"{self.db_address}/24", "dev", "br0")
        ip("-n", self.db, "link", "set", "br0", "up")
        for n, (host, link) in enumerate(zip(self.hosts, self.links, strict=True)):
            peer = f"{link}b"
            ip("link", "add", link, "type", "veth", "peer", "name", peer)
            ip("link", "set", link, "netns", host)
            ip("link", "set", peer, "netns", self.db)
            ip("-n", self.db, "link", "set", peer, "master", "br0")
            ip("-n", self.db, "link", "set", peer, "up")
            ip("-n", host, "addr", "add", f"{self.net}.{11 + n}/24", "dev", link)
            ip("-n", host, "link", "set", link, "up")

    def serve(self, routes: list[str]) -> None:
        """Forward ``db_address:port`` inside the database host to servers of the root namespace."""
        self.proxy = subprocess.Popen(
            [sys.executable, str(PROXY), f"/run/netns/{self.db}", *routes], stdout=subprocess.PIPE, text=True
        )
        assert self.proxy.stdout is not None and self.proxy.stdout.readline().strip() == "ready"

    def cut(self, n: int, up: bool = False) -> None:
        ip("-n", self.hosts[n], "link", "set", self.links[n], "up" if up else "down")

    def down(self) -> None:
        if self.proxy is not None:
            self.proxy.kill()
            self.proxy.wait(timeout=20)
        for ns in (*self.hosts, self.db):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


@pytest.fixture
def lan() -> Iterator[Lan]:
    need(os.geteuid() == 0, "network namespaces need root")
    need(shutil.which("ip") is not None, "iproute2 ('ip') is not installed")
    network = Lan()
    try:
        network.up()
        yield network
    finally:
        network.down()


def test_workers_on_two_hosts_one_cut_off(cluster: Cluster, lan: Lan) -> None:
    db = urlparse(cluster.database_url)
    lan.serve(
        [
            f"{lan.db_address}:{db.port or 5432}={db.hostname}:{db.port or 5432}",
            f"{lan.db_address}:6379=127.0.0.1:{cluster.procs['redis'].port}",
        ]
    )
    remote_db = with_database(cluster.database_url, db.path.lstrip("/"), host=lan.db_address)
    remote_redis = f"redis://{lan.db_address}:6379/0"

    cluster.scheduler()  # beat and the beat-queue worker on the database host
    for n, host in enumerate(lan.hosts):
        cluster.worker(f"w{n + 1}", concurrency=2, host=f"h{n + 1}", netns=host,
                       database_url=remote_db, redis_url=remote_redis)  # fmt: skip
    cluster.wait_ready("w1", "w2")
    t = cluster.tournament(bots=4, delay=0.1, games_per_pairing=2, double=True, max_plies=12)
    assert t["matches"] == 24

    victim = wait_for(lambda: cluster.running_on(t["id"], "w2@h2"), 120, "a match on the second host")
    cluster.wait_under_way(victim)  # cut off mid-match
    lan.cut(1)

    cluster.wait_finished(t["id"], 180)
    matches = cluster.assert_counted_once(t["id"], 24)
    assert matches[victim[0]][1] >= 2, "the cut-off host's match was not played again"
    hosts = dict(
        cluster.query(
            "SELECT split_part(worker, ':', 1), count(*) FROM matches_match WHERE tournament_id = %s GROUP BY 1",
            [t["id"]],
        )
    )
    assert hosts.get("w1@h1", 0) > 0
    assert cluster.scalar("SELECT worker FROM matches_match WHERE id = %s", [victim[0]]).startswith("w1@h1:")
    assert "lease expired (worker w2@h2" in cluster.log()
    cluster.assert_rebuild_agrees()

    # The host comes back: its old attempt finishes, and its result is dropped, not counted again.
    lan.cut(1, up=True)
    dropped = f"dropping result of match {victim[0]} attempt {victim[1]}"
    wait_for(lambda: dropped in cluster.log("w2"), 150, f"'{dropped}' from the host that was cut off")
    cluster.assert_counted_once(t["id"], 24)
    cluster.assert_rebuild_agrees()
