"""Launchers started ahead of time: a slot, its control group, and a launcher waiting in it.

Moving a process into a control group first waits for an RCU grace period
(10 ms and more on a busy machine).  A worker process therefore keeps a few
launchers (``ARBITER_SANDBOX_WARM``) already started and moved into their
slots' groups.  Where the worker mounts each bot's file systems itself (root,
as in production), a waiting launcher has gone further: its whole sandbox is
built (mounts, namespaces, uid, seccomp filter) and a shell inside it waits
for the bot's command (``workers.sandbox.command.INNER_GATE``); starting a bot
then copies it into the view, sets its CPU limits and opens that gate, which
is about what starting a bare process costs.  Elsewhere it waits at the
outer gate, and starting a bot writes its launch file and opens that.  A background thread tops the pool up after
each bot taken from it, taking only slots that are free at that moment, so a
busy pool is never made to wait for it.

Each waiting launcher holds its slot.  It dies with the worker: its input is a
pipe from the worker, and at the end of that pipe it exits.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import select
import subprocess
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path

from workers.sandbox import mounts
from workers.sandbox.group import SlotGroup
from workers.sandbox.slots import Slot, children_of, quarantine

log = logging.getLogger(__name__)


@dataclass
class Launcher:
    """A started launcher waiting at its gate: its process, slot, group and directory."""

    popen: subprocess.Popen[bytes]
    slot: Slot | None
    group: SlotGroup | None
    workdir: Path
    args_fd: int | None  # bubblewrap's options go here (a memfd the launcher has too)
    seccomp_fd: int | None = None  # the filter's descriptor number in the launcher (ours is closed)
    ahead: bool = False  # its sandbox is built and waits at the inner gate (``workers.sandbox.command``)
    cpu_seconds: int | None = None  # built ahead: the CPU limit its rlimits were set for

    def close(self) -> None:
        """End a launcher that will not be used: close its gate (it exits), empty its group, free its slot.

        A sandbox built ahead has an init of its own, which becomes this worker's child (a
        subreaper) if bubblewrap goes first: it is reaped here, and a slot whose group does
        not empty is held back until it does, never given back with something still in it.
        """
        inner = children_of(self.popen.pid) if self.ahead else []
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        if self.args_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.args_fd)
            self.args_fd = None
        try:
            self.popen.wait(2)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()
        emptied = True
        if self.group is not None:

            def reap(_killed: list[int]) -> None:
                for pid in list(inner):
                    try:
                        if os.waitpid(pid, os.WNOHANG)[0] != pid:
                            continue
                    except ChildProcessError:
                        pass
                    inner.remove(pid)

            emptied = self.group.wait_empty(5.0, reap, lambda: list(inner))
        if self.ahead:  # its /tmp, /dev/shm and view were mounted when it was started
            for name in mounts.SLOT_MOUNTS:
                mounts.unmount(self.workdir / name)
        if self.slot is not None:
            slot, group, self.slot = self.slot, self.group, None
            if emptied or group is None:
                slot.release()
            else:
                quarantine(slot, group.empty)


_lock = threading.Lock()
_changed = threading.Condition(_lock)  # a launcher was added to a pool
_pool: dict[Hashable, list[Launcher]] = {}
_wanted: dict[Hashable, tuple[int, Callable[[], Launcher | None]]] = {}
_wake = threading.Event()
_filler: threading.Thread | None = None
_retired: list[Launcher] = []  # made for other settings: to be closed by the filler


def take(key: Hashable) -> Launcher | None:
    """A waiting launcher for ``key`` (the settings it was made for), or None."""
    with _lock:
        waiting = _pool.get(key)
        return waiting.pop() if waiting else None


def refill(key: Hashable, size: int, make: Callable[[], Launcher | None]) -> None:
    """Top the pool for ``key`` up to ``size`` in the background; ``make`` returns None when no slot is free.

    One thread does it for the life of the process: a launcher's bwrap dies with the thread
    that started it (``--die-with-parent`` watches the parent thread, not the process).
    """
    global _filler
    if size <= 0:
        return
    with _lock:
        # Only the settings in use now get launchers: those kept for others would hold slots.
        stale = [x for k, launchers in _pool.items() if k != key for x in launchers]
        for k in [k for k in _pool if k != key]:
            del _pool[k]
        _wanted.clear()
        _wanted[key] = (size, make)
        _retired.extend(stale)
        if _filler is None:
            _filler = threading.Thread(target=_fill_forever, name="arbiter-warm", daemon=True)
            _filler.start()
    _wake.set()


def _fill_forever() -> None:
    while True:
        _wake.wait()
        _wake.clear()
        with _lock:
            wanted = list(_wanted.items())
            retired = list(_retired)
            _retired.clear()
        for launcher in retired:
            launcher.close()
        for key, (size, make) in wanted:
            _fill(key, size, make)


def _fill(key: Hashable, size: int, make: Callable[[], Launcher | None]) -> None:
    while True:
        with _lock:
            if len(_pool.get(key, [])) >= size:
                return
        try:
            launcher = make()
        except Exception:  # a failed warm-up only costs the next start its speed
            log.exception("could not start a launcher ahead of time")
            return
        if launcher is None:
            return
        with _lock:
            _pool.setdefault(key, []).append(launcher)
            _changed.notify_all()


def settle(timeout: float) -> bool:
    """Wait until every pool in use is full and each sandbox in it built ahead is ready; False on timeout.

    For benchmarks that time a warm start (one that meets a built sandbox) apart from the
    background work of building the next: without it, a start made right after another takes
    a sandbox still being built and waits for the rest of its build.
    """
    deadline = time.monotonic() + timeout
    with _changed:
        while not all(len(_pool.get(key, [])) >= size for key, (size, _) in _wanted.items()):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            _changed.wait(left)
        # A sandbox built ahead says it is ready with one byte on its stdout (read when it is handed out).
        fds = [x.popen.stdout.fileno() for pool in _pool.values() for x in pool if x.ahead and x.popen.stdout]
    while fds:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready = select.select(fds, [], [], left)[0]
        fds = [fd for fd in fds if fd not in ready]
    return True


def close_all() -> None:
    """End every waiting launcher and free its slot (at exit, or when settings change)."""
    with _lock:
        waiting = [launcher for launchers in _pool.values() for launcher in launchers]
        _pool.clear()
    for launcher in waiting:
        launcher.close()


def _forget_in_child() -> None:
    """A forked child (Celery's pool) starts with no launchers: those belong to the parent."""
    global _filler, _lock, _changed
    for launcher in (x for launchers in _pool.values() for x in launchers):
        for stream in (launcher.popen.stdin, launcher.popen.stdout, launcher.popen.stderr):
            with contextlib.suppress(OSError):
                if stream is not None:
                    os.close(stream.fileno())
    _pool.clear()
    _wanted.clear()
    _retired.clear()
    _filler = None
    # A lock held by a thread of the parent at the fork stays held here: new ones, the condition's too.
    _lock = threading.Lock()
    _changed = threading.Condition(_lock)


atexit.register(close_all)
os.register_at_fork(after_in_child=_forget_in_child)
