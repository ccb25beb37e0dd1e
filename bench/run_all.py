"""Every benchmark in one run (``make bench``), each figure beside a baseline measured in the same run.

Sections, each in its own process (Django reads its settings once per process):

1. engines   plies per second per engine, random playouts   (baseline: the harness loop alone)
2. referee   cost per move; sandbox start-up                (baseline: raw pipe round trip; bare process start)
3. e2e       matches per second through Celery + PostgreSQL (baseline: the referee alone, same matches, in parallel)
4. schedule  a 200-bot round robin inserted, task included   (baseline: COPY of the same rows)
5. http      API latency, 20 clients, 10,000 bots           (baseline: a trivial endpoint under the same load)
6. scale     database CPU and commits per match, N workers  (baseline: SELECT 1 round trips, same N)
             on one shared round robin of 1,000 bots, through PgBouncer
7. broker    the embedded broker: messages/s, and messages lost under concurrent producers
                                                            (baseline: kombu's own filesystem transport)
8. swiss     a 1,000-bot Swiss round paired, first and late (baseline: sorting the field)

and, when their files are there, ``bench.ratings_fit`` and ``bench.pages``.

Sections 3-6 need PostgreSQL and Redis (see bench/_common.py for the
variables; defaults are the local servers).  The machine (CPUs, model, load
average) is printed first and the load again after every section: the
figures mean little without it.  ``--quick`` runs everything small, to try
the scripts out; ``--only`` picks sections.  Exit status 1 when a section
failed or could not run.

    python -m bench.run_all [--quick] [--only e2e --only http]
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import socket
import subprocess
import sys
import time
from urllib.parse import urlparse

from bench import _common

FULL = {
    "engines": ["bench.engines", "--seconds", "1"],
    "referee": ["bench.referee", "--moves", "3000", "--starts", "20", "--trips", "5000"],
    "e2e": ["bench.e2e", "--matches", "200", "--workers", "2", "--profile"],
    "schedule": ["bench.schedule", "--bots", "200", "--repeat", "3", "--profile"],
    "http": ["bench.http_latency", "--clients", "20", "--seconds", "8", "--profile"],
    "scale": ["bench.scale", "--workers", "8", "--workers", "32", "--seconds", "10"],
    "broker": ["bench.broker"],
    "swiss": ["bench.swiss"],
}
QUICK = {
    "engines": ["bench.engines", "--seconds", "0.1", "--game", "gamesup"],
    "referee": ["bench.referee", "--moves", "300", "--starts", "3", "--trips", "500"],
    "e2e": ["bench.e2e", "--matches", "10", "--workers", "2", "--profile"],
    "schedule": ["bench.schedule", "--bots", "30", "--repeat", "1", "--profile"],
    "http": ["bench.http_latency", "--clients", "4", "--seconds", "1"],
    "scale": ["bench.scale", "--workers", "2", "--seconds", "1", "--bots", "20"],
    "broker": ["bench.broker", "--messages", "200", "--producers", "2", "--per-producer", "100", "--size", "1024"],
    "swiss": ["bench.swiss", "--bots", "100", "--played", "3", "--rounds", "2"],
}
# Other engineers' benchmarks, run when they are there (no services needed).
OPTIONAL = {
    "ratings_fit": (["bench.ratings_fit"], ["bench.ratings_fit", "--bots", "20", "--games", "500", "--repeat", "1"]),
    "pages": (["bench.pages"], ["bench.pages", "--bots", "10", "--runs", "2"]),
}
for _name, (_full, _quick) in OPTIONAL.items():
    if (_common.ROOT / "bench" / f"{_name}.py").exists():
        FULL[_name], QUICK[_name] = _full, _quick
NEEDS_SERVICES = {"e2e", "schedule", "http", "scale"}
# Lines worth repeating at the end: the verdicts and the headline figures.
SUMMARY_MARKERS = ("target met", "TARGET MISSED", " ratio ", "server:", "sandbox:", "baseline", "race:", "per match:")


def _reachable(url: str, default_port: int) -> str | None:
    """None when a TCP connection to the URL's host and port succeeds, else why not."""
    parts = urlparse(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or default_port
    try:
        with socket.create_connection((host, port), timeout=3):
            return None
    except OSError as exc:
        return f"{host}:{port} unreachable ({exc})"


def _git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=_common.ROOT, capture_output=True, text=True)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def _run(name: str, argv: list[str]) -> tuple[int, float, list[str]]:
    """Run one section, echoing its output; (exit status, seconds, lines)."""
    start = time.monotonic()
    proc = subprocess.Popen(
        [_common.PYTHON, "-m", *argv],
        cwd=_common.ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
    )
    lines = []
    assert proc.stdout is not None
    for line in proc.stdout:
        print(f"  {line}", end="", flush=True)
        lines.append(line.rstrip("\n"))
    return proc.wait(), time.monotonic() - start, lines


def main(argv: list[str] | None = None) -> int:
    """Print the machine, run the sections in order, then a summary of the verdicts."""
    parser = argparse.ArgumentParser(prog="python -m bench.run_all", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, to try the scripts out")
    parser.add_argument("--only", action="append", choices=list(FULL), help="run only this section (repeatable)")
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    names = args.only or list(plan)

    started = time.monotonic()
    now = dt.datetime.now(dt.UTC)  # noqa: TID251 - the report's date for a reader: never stored nor compared
    print(f"Arbiter benchmarks, {now:%Y-%m-%d %H:%M} UTC, commit {_git_commit()}")
    print(f"machine: {_common.machine()}")
    print(f"python {platform.python_version()} ({sys.executable})")
    missing = None
    if NEEDS_SERVICES & set(names):
        missing = _reachable(_common.server_url(), 5432) or _reachable(_common.redis_url(), 6379)
        where = f"PostgreSQL {urlparse(_common.server_url()).netloc}, Redis {urlparse(_common.redis_url()).netloc}"
        print(f"services: {where}" + (f" -- {missing}" if missing else ""))
    failed: list[str] = []
    summary: list[str] = []
    for name in names:
        print(f"\n== {name}: python -m {' '.join(plan[name])}   (load before: {_common.load()})", flush=True)
        if name in NEEDS_SERVICES and missing:
            print(f"  SKIPPED: {missing}")
            failed.append(f"{name} (skipped)")
            continue
        status, seconds, lines = _run(name, plan[name])
        tail = f"; EXIT {status}" if status else ""
        print(f"  -- {name} took {seconds:.0f} s; load after: {_common.load()}{tail}")
        if status:
            failed.append(name)
        summary.extend(f"{name}: {line.strip()}" for line in lines if any(m in line for m in SUMMARY_MARKERS))
    print(f"\n== summary (all sections {time.monotonic() - started:.0f} s; load now {_common.load()})")
    for line in summary:
        print(f"  {line}")
    if failed:
        print(f"  FAILED or not run: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
