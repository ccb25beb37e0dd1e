"""Shared helpers for the service benchmarks: the machine, throwaway databases, Django set-up.

The service benchmarks (``bench.e2e``, ``bench.schedule``, ``bench.http_latency``)
need real PostgreSQL and Redis.  They read, in this order:

- ``ARBITER_BENCH_DATABASE_URL``, ``ARBITER_TEST_DATABASE_URL``, or
  ``postgres://postgres@127.0.0.1:5432/arbiter``: the server; every benchmark
  uses its own database on it, named after the one in the URL;
- ``ARBITER_BENCH_REDIS_URL``, ``ARBITER_TEST_REDIS_URL``, or
  ``redis://127.0.0.1:6379/0``; each run uses a private queue name.

Their web servers and workers are a live process set (``tests.live``, the
same class the tests use): a private queue, var dir and sandbox uids per run.
Django reads its settings from the environment once, at set-up, so each
benchmark runs in its own process (``bench.run_all`` starts them one by one).
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tests.live import ProcessSet
from tests.live import services as _services

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/arbiter"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


# -- the machine ---------------------------------------------------------------------


def cpu_model() -> str:
    """The first "model name" of /proc/cpuinfo (or "unknown")."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def load() -> str:
    """The 1, 5 and 15 minute load averages, as /proc/loadavg says them."""
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def machine() -> str:
    """One line naming the machine a figure came from."""
    return f"{os.cpu_count()} CPUs ({cpu_model()}), load average {load()}"


# -- figures -------------------------------------------------------------------------


def percentile(values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile (0-100), nearest rank; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(p / 100.0 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def verdict(met: bool) -> str:
    return "target met" if met else "TARGET MISSED"


# -- databases and broker ------------------------------------------------------------


def server_url() -> str:
    return (
        os.environ.get("ARBITER_BENCH_DATABASE_URL")
        or os.environ.get("ARBITER_TEST_DATABASE_URL")
        or DEFAULT_DATABASE_URL
    )


def redis_url() -> str:
    return os.environ.get("ARBITER_BENCH_REDIS_URL") or os.environ.get("ARBITER_TEST_REDIS_URL") or DEFAULT_REDIS_URL


def database_url(name: str) -> str:
    """The server's URL with the database ``name``."""
    return _services.with_database(server_url(), name)


def database_name(suffix: str) -> str:
    """``<base>_bench_<suffix>``, where base is the database named in the server URL."""
    return _services.database_name(server_url(), f"bench_{suffix}")


def database_exists(name: str) -> bool:
    return _services.database_exists(server_url(), name)


def database_create(name: str) -> str:
    """A fresh, empty database (dropped first if left over); returns its URL."""
    return _services.database_create(server_url(), name)


def database_drop(name: str) -> None:
    _services.database_drop(server_url(), name)


# The guardian: waits for its parent's end (the end of its stdin), then kills every process that
# carries the run's mark in its environment and drops the run's database.
_GUARDIAN = """
import os, signal, sys, time
mark, server, database = sys.argv[1:4]
sys.stdin.buffer.read()
me = os.getpid()
for _ in range(3):
    found = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if mark.encode() not in f.read().split(b"\\0") or int(pid) == me:
                    continue
            os.kill(int(pid), signal.SIGKILL)
            found += 1
        except OSError:
            pass
    if not found:
        break
    time.sleep(0.5)
if database:
    from tests.live import services
    services.database_drop(server, database)
"""


def guard_run(database: str | None) -> subprocess.Popen[bytes]:
    """Make sure nothing of this run outlives it, however it ends (SIGKILL included).

    Marks this process's environment (inherited by every process it starts: web servers,
    Celery workers and their pools, baseline processes) and starts a guardian process that,
    once this one is gone, kills every process with the mark and drops ``database`` (None:
    keep it).  SIGTERM and SIGHUP become SystemExit here, so the ordinary clean-up runs first.
    """
    mark = f"ARBITER_BENCH_RUN={os.getpid()}-{time.time_ns()}"
    os.environ["ARBITER_BENCH_RUN"] = mark.partition("=")[2]
    guardian = subprocess.Popen(
        [PYTHON, "-c", _GUARDIAN, mark, server_url(), database or ""],
        stdin=subprocess.PIPE,
        cwd=ROOT,
        start_new_session=True,  # not in our process group: a Ctrl-C or a killpg of ours spares it
        env={k: v for k, v in os.environ.items() if k != "ARBITER_BENCH_RUN"},
    )

    def _exit(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _exit)
    return guardian


def process_set(tmp: Path, database: str) -> ProcessSet:
    """The benchmark's live process set (not started: use it in ``with``) on ``database`` and the Redis.

    Its environment (``procs.env()``) is also what the benchmark's own Django runs with.
    """
    return ProcessSet(
        tmp, database_url=database, redis_url=redis_url(), env={"ARBITER_LOG_LEVEL": "WARNING"}, tag="bench"
    )


def django_setup(env: dict[str, str], *, migrate: bool = False) -> None:
    """Set Django up in this process against ``env``'s database (and migrate it if asked)."""
    os.environ.update(env)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    if migrate:
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)
