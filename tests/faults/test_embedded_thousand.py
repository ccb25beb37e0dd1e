"""The embedded service (``make start``) plays 1,000 short matches while its worker is killed twice.

As scripts/start.sh runs it: SQLite, the file-system broker under the var dir,
one Celery worker (two processes) with beat embedded, under
``scripts/supervise.sh``.  Twice, at a random point of the tournament, every
Celery process of the worker gets SIGKILL (the loop around it survives and
starts it again); the matches they were playing come back through the lease
sweeper, the messages they held through the dispatcher.  Every match finishes
exactly once, ratings count each once and agree with a rebuild, and no seat is
charged for the kills.  Prints the wall time, matches/s and each recovery.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import signal
import sqlite3
import subprocess
import time
from collections.abc import Sequence
from typing import Any

import pytest

from tests.faults.harness import Cluster, have_sandbox
from tests.faults.test_recovery_clocks import DEFAULT_CLOCKS
from tests.live.fixtures import LiveFactory
from tests.live.process import ROOT, celery_argv
from tests.waiting import wait_for
from workers.sandbox.slots import stat_fields

pytestmark = [pytest.mark.slow]

BOTS, GAMES_PER_PAIRING = 5, 100  # a single round robin of 5 bots: 10 pairings x 100 = 1,000 matches
MATCHES = BOTS * (BOTS - 1) // 2 * GAMES_PER_PAIRING
KILLS = 2


class EmbeddedCluster(Cluster):
    """A fault-test set without PostgreSQL: the queries read the set's SQLite file."""

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        """Rows of one statement (``%s`` placeholders, as for PostgreSQL), read-only."""
        path = self.base_dir / "var" / "arbiter.sqlite3"
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)) as conn:
            return conn.execute(sql.replace("%s", "?"), list(params)).fetchall()

    def start_embedded(self) -> None:
        """The worker as scripts/start.sh starts it: beat embedded, under scripts/supervise.sh."""
        argv = celery_argv("worker", node="embedded@main", concurrency=2, schedule=self.base_dir / "celerybeat")
        self.spawn("worker", [str(ROOT / "scripts" / "supervise.sh"), *argv], kind="worker")

    def celery_pids(self) -> list[int]:
        """The worker's Celery processes: the one under the loop and its pool (not the bots)."""
        main = _children(self.procs["worker"].pid)
        assert len(main) == 1, main
        return main + [pid for pid in _children(main[0]) if _is_celery(pid)]


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def _start_time(pid: int) -> str | None:
    """When the process started (clock ticks after boot); None once it has exited (gone, or a zombie)."""
    fields = stat_fields(pid)
    return None if fields is None or fields[0] == "Z" else fields[19]


def _is_celery(pid: int) -> bool:
    with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as f:
        return b"celery" in f.read()
    return False


@pytest.fixture
def cluster(live_processes: LiveFactory) -> EmbeddedCluster:
    have_sandbox()
    env = {**DEFAULT_CLOCKS, "ARBITER_QUEUED_MATCHES_PER_USER": str(2 * MATCHES)}
    made = live_processes(embedded=True, env=env, tag="embedded", set_class=EmbeddedCluster)
    assert isinstance(made, EmbeddedCluster)
    return made


def _finished(cluster: EmbeddedCluster, tournament_id: int) -> int:
    return cluster.progress(tournament_id).get("finished", 0)


def _kill_once(cluster: EmbeddedCluster, tournament_id: int, at: int) -> float:
    """SIGKILL every Celery process of the worker once ``at`` matches have finished; seconds until the
    restarted worker has finished a match again."""
    wait_for(lambda: _finished(cluster, tournament_id) >= at, 600, f"{at} finished matches", every=0.2)
    pids = cluster.celery_pids()
    started = {pid: at for pid in pids if (at := _start_time(pid)) is not None}
    before = _finished(cluster, tournament_id)
    killed_at = time.monotonic()
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    # Whatever the dying pool recorded in its last instant counts as before the kill: read once it is gone.
    wait_for(lambda: all(_start_time(pid) != at for pid, at in started.items()), 30, "the killed processes to exit")
    before = max(before, _finished(cluster, tournament_id))
    wait_for(lambda: _finished(cluster, tournament_id) > before, 300, "a match finished after the kill", every=0.2)
    recovered = time.monotonic() - killed_at
    print(f"kill at {before} finished ({len(pids)} Celery processes): a match finished again {recovered:.1f} s later")
    return recovered


def test_embedded_service_plays_1000_matches_through_two_worker_kills(cluster: EmbeddedCluster) -> None:
    cluster.start_embedded()
    cluster.wait_ready()
    rng = random.Random()
    seed = rng.randrange(1 << 30)
    rng.seed(seed)
    # One kill in each half of the tournament, at a random number of finished matches.
    points = [rng.randrange(MATCHES // 10, MATCHES // 2), rng.randrange(MATCHES // 2 + 50, MATCHES * 9 // 10)]
    print(f"seed {seed}: kills after {points} finished matches")

    started = time.monotonic()
    t = cluster.tournament(bots=BOTS, delay=0.0, games_per_pairing=GAMES_PER_PAIRING, max_plies=4)
    assert t["matches"] == MATCHES
    recoveries = [_kill_once(cluster, t["id"], at) for at in points]
    cluster.wait_finished(t["id"], 900)
    wall = time.monotonic() - started

    assert cluster.log("worker").count("supervise:") == KILLS, "the loop restarted the worker once per kill"
    matches = cluster.assert_counted_once(t["id"], MATCHES)
    replayed = sum(1 for _, attempt, _ in matches.values() if attempt > 1)
    seats = cluster.query(
        "SELECT DISTINCT s.status FROM matches_matchseat s JOIN matches_match m ON m.id = s.match_id "
        "WHERE m.tournament_id = %s",
        [t["id"]],
    )
    assert {s for (s,) in seats} == {"ok"}, "a seat was charged for a killed worker"
    cluster.assert_rebuild_agrees()
    assert not os.listdir(cluster.base_dir / "var" / "broker" / "quarantine")
    # On SQLite too, the sweeper takes back the killed attempts and the dispatcher resends lost messages
    # (each warning is in the log twice, once in Celery's format: count that one).
    log = cluster.log("worker")
    swept = sum(int(n) for n in re.findall(r"\] sweeper: ended (\d+) attempt", log))
    resent = sum(int(n) for n in re.findall(r"\] dispatcher: .* sent (\d+)", log))
    print(
        f"{MATCHES} matches in {wall:.1f} s ({MATCHES / wall:.1f} matches/s), {replayed} played again, "
        f"recovered in {', '.join(f'{r:.1f}' for r in recoveries)} s; "
        f"sweeper ended {swept} attempt(s), dispatcher resent {resent} message(s)"
    )
