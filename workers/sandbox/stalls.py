"""Time a bot could not run through no doing of its own: waiting for a CPU, or stopped from outside.

The referee's wall-clock backstop (``workers.referee.clock``) is there for a bot
that sleeps or blocks.  It must not run out for a bot that wanted to compute
but got no CPU (a loaded machine, a busy neighbour on its CPU), nor for one
that something outside its sandbox stopped.  The kernel keeps both facts for
every thread, and the slot's control group lists the threads:

- ``/proc/<tid>/schedstat``: its second field is the nanoseconds the thread has
  waited on a run queue, ready to run, since it started;
- ``/proc/<tid>/stat``: the thread's state, ``T`` (stopped by a signal) or ``t``
  (stopped by a tracer).

Under the seccomp filter a bot can neither send a stop signal nor arrange for
the kernel to send one, nor trace, nor have a terminal whose job control would
stop it (``workers.sandbox.seccomp``): a stopped process of a filtered bot was
stopped from outside.  Without the filter a stop may be the bot's own doing, and
:class:`Look` never reports one.

A look reads the group's thread list (one small file, opened afresh: cgroup v1
keeps the list it read for an open file) and ``pread``s two files per thread,
kept open from look to look; a file of a thread that has ended reads as an
error and is closed.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from workers.sandbox.group import SlotGroup
from workers.sandbox.slots import process_tree

STOPPED_STATES = frozenset({"T", "t"})


@dataclass(frozen=True)
class Look:
    """What the kernel says of a bot's threads now."""

    waited_ns: int  # run-queue wait of all its threads since the first look (never decreasing)
    stopped: bool  # a process of the bot is stopped, and that can only have been done from outside
    stopped_s: float = 0.0  # since when, without a break: from the first look that saw it stopped


class Stalls:
    """The run-queue wait and stops of one bot's threads, read from /proc with files kept open."""

    def __init__(
        self, threads: Callable[[], list[int]], *, stops_are_outside: bool, now: Callable[[], float] = time.monotonic
    ) -> None:
        """``threads`` lists the bot's thread ids; ``stops_are_outside``: the bot cannot stop itself."""
        self._threads = threads
        self._stops_are_outside = stops_are_outside
        self._now = now
        self._stopped_since: float | None = None
        self._files: dict[int, tuple[int, int]] = {}  # tid -> (schedstat fd, stat fd)
        self._last: dict[int, int] = {}  # tid -> its run-queue wait at the last look
        self._waited = 0
        self._first = True

    def look(self) -> Look:
        """Add up the run-queue wait since the last look and see whether any thread is stopped."""
        try:
            tids = self._threads()
        except OSError:
            tids = list(self._files)
        stopped = False
        seen = set()
        for tid in tids:
            read = self._read(tid)
            if read is None:
                continue
            waited, state = read
            seen.add(tid)
            # A thread first seen after the first look started since: all of its wait is new.
            before = self._last.get(tid, waited if self._first else 0)
            self._waited += max(0, waited - before)
            self._last[tid] = waited
            stopped = stopped or state in STOPPED_STATES
        for tid in [t for t in self._files if t not in seen]:
            self._forget(tid)
        self._first = False
        if not (stopped and self._stops_are_outside):
            self._stopped_since = None
            return Look(waited_ns=self._waited, stopped=False)
        now = self._now()
        if self._stopped_since is None:
            self._stopped_since = now
        return Look(waited_ns=self._waited, stopped=True, stopped_s=now - self._stopped_since)

    def _read(self, tid: int) -> tuple[int, str] | None:
        """(run-queue wait in ns, state letter) of thread ``tid``, or None once it is gone."""
        files = self._files.get(tid)
        try:
            if files is None:
                files = self._files[tid] = self._open(tid)
            sched = os.pread(files[0], 256, 0).split()
            stat = os.pread(files[1], 1024, 0)
            # The command name may hold spaces and parentheses: the state follows the last ')'.
            state = stat[stat.rindex(b")") + 2 : stat.rindex(b")") + 3].decode()
            return int(sched[1]), state
        except (OSError, ValueError, IndexError):
            self._forget(tid)
            return None

    @staticmethod
    def _open(tid: int) -> tuple[int, int]:
        sched = os.open(f"/proc/{tid}/schedstat", os.O_RDONLY | os.O_CLOEXEC)
        try:
            return sched, os.open(f"/proc/{tid}/stat", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            os.close(sched)
            raise

    def _forget(self, tid: int) -> None:
        for fd in self._files.pop(tid, ()):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._last.pop(tid, None)

    def close(self) -> None:
        """Close every file kept open."""
        for tid in list(self._files):
            self._forget(tid)


def bot_threads(group: SlotGroup | None, root: int, leave_out: set[int]) -> list[int]:
    """Every thread of a bot: its control group's list, or (without one) those of its process tree.

    ``leave_out``: bubblewrap's own processes (single-threaded), which wait for the bot.
    """
    if group is not None:
        return [tid for tid in group.threads() if tid not in leave_out]
    tids = []
    for pid in process_tree(root):
        if pid not in leave_out:
            with contextlib.suppress(OSError):
                tids += [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    return tids
