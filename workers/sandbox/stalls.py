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

A look ``pread``s two files per thread, kept open from look to look; a file of
a thread that has ended reads as an error and is closed.  The group's thread
list (one small file, opened afresh: cgroup v1 keeps the list it read for an
open file) costs as much as the rest of a look, and a bot's threads rarely
change between two looks, so a list is kept while the group's task count
(``pids.current``, one ``pread``) stays what it was when the list was read
and matched the list's length.  A thread can then only be new if a listed one
was released: a bot thread's files read as an error, and the list is read
again in the same look; bubblewrap's own processes go only when the sandbox
does.  Zombies count but are not listed: a group holding one is listed at
every look, as before.
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
        self,
        threads: Callable[[], list[int]],
        *,
        stops_are_outside: bool,
        now: Callable[[], float] = time.monotonic,
        count: Callable[[], int | None] | None = None,
        leave_out: Callable[[], set[int]] = set,
    ) -> None:
        """``threads`` lists every thread of the bot's group (or tree); ``leave_out()``: those that
        are not the bot's (bubblewrap's own processes); ``stops_are_outside``: the bot cannot stop
        itself; ``count``: how many tasks the group holds now (None when unknown), which keeps a list.
        """
        self._threads = threads
        self._leave_out = leave_out
        self._count = count
        self._listed: tuple[list[int], int] | None = None  # the bot's threads and the group's count then
        self._stops_are_outside = stops_are_outside
        self._now = now
        self._stopped_since: float | None = None
        self._files: dict[int, tuple[int, int]] = {}  # tid -> (schedstat fd, stat fd)
        self._last: dict[int, int] = {}  # tid -> its run-queue wait at the last look
        self._waited = 0
        self._first = True

    def look(self) -> Look:
        """Add up the run-queue wait since the last look and see whether any thread is stopped."""
        tids, kept = self._list()
        stopped = False
        seen: set[int] = set()
        ended = False
        for tid in tids:
            state = self._add(tid)
            if state is None:
                ended = True
                continue
            seen.add(tid)
            stopped = stopped or state in STOPPED_STATES
        if kept and ended:
            # A listed thread ended: another may have started in its place (the count is the same).
            self._listed = None
            for tid in self._list()[0]:
                if tid not in seen and (state := self._add(tid)) is not None:
                    seen.add(tid)
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

    def _list(self) -> tuple[list[int], bool]:
        """The bot's thread ids, and whether they are the list kept (the group's count unchanged)."""
        count = None
        if self._count is not None:
            try:
                count = self._count()
            except (OSError, ValueError):
                count = None
        if count is not None and self._listed is not None and count == self._listed[1]:
            return self._listed[0], True
        self._listed = None
        try:
            every = self._threads()
        except OSError:
            return list(self._files), False
        own = self._leave_out()
        tids = [tid for tid in every if tid not in own]
        if count is not None and count == len(every):
            self._listed = (tids, count)
        return tids, False

    def _add(self, tid: int) -> str | None:
        """Fold thread ``tid``'s run-queue wait into the total; its state letter, or None once it is gone."""
        read = self._read(tid)
        if read is None:
            return None
        waited, state = read
        # A thread first seen after the first look started since: all of its wait is new.
        before = self._last.get(tid, waited if self._first else 0)
        self._waited += max(0, waited - before)
        self._last[tid] = waited
        return state

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


def bot_threads(group: SlotGroup | None, root: int) -> list[int]:
    """Every thread of a bot's control group, or (without one) of its process tree from ``root``.

    bubblewrap's own processes (single-threaded) are among them: :class:`Stalls` leaves them out.
    """
    if group is not None:
        return group.threads()
    tids = []
    for pid in process_tree(root):
        with contextlib.suppress(OSError):
            tids += [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    return tids
