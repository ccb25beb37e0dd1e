"""A bot's end off the match's path: its processes waited out on the kernel's word, its slot freed later.

Once its bots are killed a match needs nothing more of them: their pipes are
read to the end and the record goes back to the caller.  What is left (reaping
what is ours, waiting until the slot's control group or uid holds nothing,
the slot's mounts, and giving the slot back, or holding it back while
anything of its bot lives: ``workers.sandbox.slots.quarantine``) is handed to
one thread per worker process (:func:`end_later`).

Every wait here is on the kernel's notification, never a sleep: a pidfd per
live process, readable the moment it exits (:func:`wait_exits`).  Zombies
are no longer listed in a group but still count in it until their parent
reaps them; those whose parent is this process are reaped here, and the
callers watch their own children's pidfds for that.

:func:`settle` waits until every handed-over end is done: for tests,
benchmarks and a worker's exit.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import logging
import os
import select
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workers.sandbox.process import BotProcess

log = logging.getLogger(__name__)

# A wait with nothing to watch (zombies whose parent is some other process) looks again after this.
BLIND_WAIT_S = 0.05
# How long a worker's exit waits for the ends still pending (the slots are given back by the exit anyway).
EXIT_WAIT_S = 10.0


def wait_exits(pids: Iterable[int], timeout: float) -> None:
    """Return once any of ``pids`` has exited (at once if one is gone already), or after ``timeout`` seconds.

    One pidfd per process and one ``poll``: woken by the kernel when a process exits.
    A zombie counts as exited.  Without pidfds (kernels before 5.3) the wait is blind.
    """
    fds: list[int] = []
    try:
        for pid in pids:
            try:
                fds.append(os.pidfd_open(pid))
            except ProcessLookupError:
                return  # gone already: the caller looks again
            except OSError as exc:
                if exc.errno not in (errno.ENOSYS, errno.EPERM):
                    raise
                _blind_wait(timeout)
                return
        if not fds:
            _blind_wait(timeout)
            return
        poller = select.poll()
        for fd in fds:
            poller.register(fd, select.POLLIN)
        poller.poll(max(0, int(timeout * 1000)))
    finally:
        for fd in fds:
            os.close(fd)


def _blind_wait(timeout: float) -> None:
    # Nothing the kernel can wake us for: look again shortly (the rare case, in the background).
    select.select([], [], [], max(0.0, min(timeout, BLIND_WAIT_S)))


def wait_group_gone(proc: BotProcess) -> bool:
    """Kill the bot's control group until the kernel confirms it empty, reaping what is ours; True then.

    Our own child is reaped by ``proc.poll()`` (for its status and rusage); any other process
    of the bot that became our child (the sandbox's init when bwrap went first: this worker is
    a subreaper) is reaped here.  Between rounds the kernel wakes the wait when a process of
    the group or one of those children exits.
    """
    from workers.sandbox.slots import KILL_WAIT_S, reap_orphans

    group = proc.group
    assert group is not None
    proc.note_inner()
    orphans: set[int] = set(proc.inner)
    rounds = 0

    def reap(killed: list[int]) -> None:
        nonlocal rounds
        orphans.update(pid for pid in killed if pid != proc.pid)
        proc.poll()
        for pid in list(orphans):
            try:
                if os.waitpid(pid, os.WNOHANG)[0] != pid:
                    continue
            except ChildProcessError:
                pass
            orphans.discard(pid)
        if proc.slot is not None:
            _reap_zombies_of(proc.slot.uid, proc.pid)
        rounds += 1
        if rounds % 6 == 0 and proc.slot is not None:
            reap_orphans(proc.slot.uid, os.getpid())  # hidden behind another's zombie: look in /proc

    def ours() -> list[int]:
        return [*orphans, proc.pid] if proc.returncode is None else list(orphans)

    try:
        return group.wait_empty(KILL_WAIT_S, reap, ours)
    except OSError as exc:
        log.error("slot group of bot %s unusable while killing it: %s", proc.pid, exc)
        return False


def _reap_zombies_of(uid: int, own: int) -> None:
    """Reap zombie children of this worker that ran as ``uid`` (the sandbox's init, orphaned to us).

    Only the first waiting child can be seen without reaping it: when that is someone
    else's, the caller falls back to a look through /proc.  ``own`` (the bot's first
    process) is left to the bot, which reaps it for its status.
    """
    while True:
        try:
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return
        if info is None or info.si_uid != uid or info.si_pid == own:
            return
        with contextlib.suppress(ChildProcessError):
            os.waitpid(info.si_pid, os.WNOHANG)


# -- the thread that ends bots after their match ---------------------------------------------

_cond = threading.Condition()
_jobs: deque[Callable[[], None]] = deque()
_pending = 0
_thread: threading.Thread | None = None


def end_later(job: Callable[[], None]) -> None:
    """Run ``job`` (a bot's end: wait for its processes, free its slot) in this process's ending thread."""
    global _pending, _thread
    with _cond:
        _jobs.append(job)
        _pending += 1
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_run, name="arbiter-ending", daemon=True)
            _thread.start()
        _cond.notify_all()


def _run() -> None:
    global _pending
    while True:
        with _cond:
            while not _jobs:
                _cond.wait()
            job = _jobs.popleft()
        try:
            job()
        except Exception:  # one bot's failed end must not stop the next ones
            log.exception("ending a bot after its match failed")
        finally:
            with _cond:
                _pending -= 1
                _cond.notify_all()


def pending() -> int:
    """Ends handed over and not yet done."""
    with _cond:
        return _pending


def settle(timeout: float = 60.0) -> bool:
    """Wait until every end handed over so far is done; False if some are still running after ``timeout``."""
    with _cond:
        return _cond.wait_for(lambda: _pending == 0, timeout)


def _forget_in_child() -> None:
    """A forked child has no ending thread and none of its parent's bots to end."""
    global _cond, _pending, _thread
    _cond = threading.Condition()
    _jobs.clear()
    _pending = 0
    _thread = None


def _at_exit() -> None:
    with contextlib.suppress(Exception):
        if not settle(EXIT_WAIT_S):
            log.warning("%d bot end(s) still pending at exit", pending())


atexit.register(_at_exit)
os.register_at_fork(after_in_child=_forget_in_child)
