"""A killed worker's launchers, reaped by the process they were left to.

A worker process that dies mid-match (SIGKILL, the OOM killer) leaves its
launchers (``sh``, then ``bwrap``) to the nearest subreaper: the Celery main
process, which became one when it ran the sandbox self-test.  They end as
soon as their bot does, but nothing in that process waits for them, and as
zombies they still count in their slot's control group, which then never
empties: the slot would be held back for the life of the worker.  A thread of
the main process reaps them.  It waits only for those pids (children in state
Z named like a launcher), never with ``waitpid(-1)``, so the exit statuses of
the pool's own processes stay where the pool reads them.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time

from workers.sandbox.slots import children_of, read_proc, stat_fields

log = logging.getLogger(__name__)

# What a launcher is called while it waits (the shell) and once it has become bubblewrap.
LAUNCHER_NAMES = frozenset({"sh", "dash", "bwrap"})


def _dead_launcher(pid: int) -> bool:
    fields = stat_fields(pid) or []
    return fields[:1] == ["Z"] and (read_proc(pid, "comm") or "").strip() in LAUNCHER_NAMES


def reap_stray_launchers() -> int:
    """Reap this process's zombie children that are launchers; returns how many went."""
    reaped = 0
    for pid in children_of(os.getpid()):
        if _dead_launcher(pid):
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    reaped += 1
    if reaped:
        log.info("reaped %d launcher(s) left by a pool process that ended (killed mid-match, or at its exit)", reaped)
    return reaped


def start_stray_reaper(every_s: float = 2.0) -> threading.Thread:
    """Reap stray launchers every ``every_s`` seconds, for the life of this process."""

    def loop() -> None:
        while True:
            time.sleep(every_s)
            try:
                reap_stray_launchers()
            except Exception:  # never let the reaper die: the next round tries again
                log.exception("reaping stray launchers failed")

    thread = threading.Thread(target=loop, name="arbiter-stray-reaper", daemon=True)
    thread.start()
    return thread
