"""CPU time per component of a benchmark's round, read from /proc (``bench.e2e --cpu``).

Taken before and after a phase; the difference is the CPU each part spent in
it.  Processes that exit during the phase (bots, the sandbox's processes, the
baseline's spawned processes) are counted where they are waited for: in their
parent's "children" times (``cutime`` + ``cstime``).  The shared servers
(PostgreSQL, Redis) serve other users of the machine too: only this run's
PostgreSQL backends (by database name) are counted; Redis is counted whole.
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

from workers.sandbox.slots import process_tree, read_proc, stat_fields

TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")
_BACKEND = "PostgreSQL backend "


def _times(fields: list[str]) -> tuple[float, float]:
    """(own, waited children's) CPU ms of a process from its stat fields."""
    utime, stime, cutime, cstime = (int(fields[i]) for i in (11, 12, 13, 14))
    return (utime + stime) * TICK_MS, (cutime + cstime) * TICK_MS


def _cmdline(pid: int) -> str:
    return (read_proc(pid, "cmdline") or "").replace("\0", " ")


def _machine_ms() -> float:
    """All CPUs' busy time (user, nice, system, irq, softirq, steal), in ms."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    return sum(int(fields[i]) for i in (0, 1, 2, 5, 6, 7)) * TICK_MS


def snapshot(backend_pids: list[int]) -> dict[str, float]:
    """CPU ms so far of every part: this process, its Celery workers (main, pool threads, waited children),
    the given PostgreSQL backends, Redis, and the machine as a whole."""
    parts: dict[str, float] = defaultdict(float)
    me = os.getpid()
    own, waited = _times(stat_fields(me) or [])
    parts["bench process"] += own
    parts["bench's waited children (baselines' processes and their bots)"] += waited
    for pid in process_tree(me)[1:]:
        if "celery" not in _cmdline(pid):
            continue
        fields = stat_fields(pid)
        if fields is None:
            continue
        parent_is_celery = "celery" in _cmdline(int(fields[1]))
        if not parent_is_celery:
            parts["celery main process"] += _times(fields)[0]
            continue
        # A pool process: its threads apart, then what it waited for (bots, launchers, sandboxes).
        for task in Path(f"/proc/{pid}/task").iterdir():
            tfields = stat_fields(pid, f"task/{task.name}/stat")
            if tfields is None:
                continue
            name = "main thread" if int(task.name) == pid else "other threads (heartbeat, live, ending, trash)"
            parts[f"pool processes: {name}"] += _times(tfields)[0]
        parts["pool processes: waited children (bots, sandbox)"] += _times(fields)[1]
        for child in process_tree(pid)[1:]:  # still running: bots, waiting launchers
            cfields = stat_fields(child)
            if cfields is not None:
                parts["pool processes: live children (bots, launchers)"] += _times(cfields)[0]
    for pid in backend_pids:
        fields = stat_fields(pid)
        if fields is not None:
            parts[f"{_BACKEND}{pid}"] += _times(fields)[0]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _cmdline(int(entry.name)).startswith("redis-server"):
            fields = stat_fields(int(entry.name))
            if fields is not None:
                parts["redis-server (shared with others)"] += _times(fields)[0]
    parts["machine, all CPUs"] = _machine_ms()
    return parts


def backends(database: str) -> list[int]:
    """The pids of the PostgreSQL backends connected to ``database`` (this run's)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", [database])
        return [row[0] for row in cursor.fetchall()]


def report(title: str, before: dict[str, float], after: dict[str, float], matches: int) -> str:
    """CPU ms per match of each part between two snapshots."""
    lines = [f"  CPU per match, {title}:"]
    deltas: dict[str, float] = defaultdict(float)
    for key in after:  # a backend that ended meanwhile is left out (its time is gone with it)
        name = "PostgreSQL backends of this database" if key.startswith(_BACKEND) else key
        deltas[name] += after[key] - before.get(key, 0.0)
    for key in sorted(deltas, key=lambda k: (k.startswith("machine"), k)):
        delta = deltas[key] / matches
        if abs(delta) >= 0.05 or key.startswith("machine"):
            lines.append(f"    {key:<66} {delta:8.1f} ms")
    return "\n".join(lines)
