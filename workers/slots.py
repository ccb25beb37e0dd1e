"""A pool of sandbox slots: one unprivileged uid/gid per concurrently running bot, and their processes.

Each slot is a lock file under the runtime directory, held with ``flock`` for
as long as a bot runs under that uid.  ``flock`` locks belong to an open file
description, so two worker processes, and two threads of one process, never
hold the same slot; a crashed worker's locks vanish with its file descriptors.

Because every process a bot starts keeps its slot's uid, "everything the bot
started" is simply "every process of that uid", found by scanning ``/proc``:
this is how a double-forked ``setsid`` daemon is caught as well.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import logging
import os
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)


class NoFreeSlotError(RuntimeError):
    """Every slot stayed busy for the whole wait."""


@dataclass
class Slot:
    """A held slot; ``release`` (or the context manager) gives it back."""

    uid: int
    lock_path: Path
    _fd: int | None = field(default=None, repr=False)

    def release(self) -> None:
        """Unlock and close the lock file (idempotent)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    def __enter__(self) -> Slot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def ensure_private_dir(path: Path, mode: int = 0o711) -> Path:
    """Create ``path`` (and parents) owned by us, refusing a directory someone else planted."""
    path.mkdir(parents=True, exist_ok=True)
    info = os.lstat(path)
    # A world-writable parent such as /tmp lets others pre-create the name;
    # only a real directory we own is safe to hand to the sandbox.
    if not os.path.isdir(path) or os.path.islink(path) or info.st_uid != os.geteuid():
        raise PermissionError(f"{path} is not a directory owned by uid {os.geteuid()}")
    os.chmod(path, mode)
    return path


def acquire_slot(lock_dir: Path, first_uid: int, count: int, wait_s: float = 30.0) -> Slot:
    """Lock the first free slot of ``count`` uids starting at ``first_uid``.

    Every worker of a machine must use the same ``lock_dir``: a uid is only exclusive among
    those who lock it in the same place.  Waits up to ``wait_s`` seconds for a slot to free
    up, then raises NoFreeSlotError.
    """
    lock_dir = ensure_private_dir(lock_dir, 0o700)
    deadline = time.monotonic() + wait_s
    # Start at a per-process offset so concurrent workers rarely contend on the same files.
    start = os.getpid() % max(count, 1)
    while True:
        for i in range(count):
            uid = first_uid + (start + i) % count
            path = lock_dir / f"{uid}.lock"
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return Slot(uid=uid, lock_path=path, _fd=fd)
        if time.monotonic() >= deadline:
            raise NoFreeSlotError(f"all {count} sandbox slots from uid {first_uid} are busy")
        time.sleep(0.05)


def read_proc(pid: int, name: str) -> str | None:
    try:
        with open(f"/proc/{pid}/{name}", encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def stat_fields(pid: int) -> list[str] | None:
    text = read_proc(pid, "stat")
    if text is None:
        return None
    # The command name may hold spaces and parentheses: split after the last ')'.
    return text[text.rfind(")") + 2 :].split()


def _procs_of_uid(uid: int) -> Iterator[tuple[int, list[str]]]:
    """(pid, stat fields) of every process whose /proc entry belongs to ``uid``."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat(follow_symlinks=False).st_uid != uid:
                continue
        except OSError:
            continue
        fields_ = stat_fields(int(entry.name))
        if fields_:
            yield int(entry.name), fields_


def pids_of_uid(uid: int) -> list[int]:
    """Live (non-zombie) processes whose /proc entry belongs to ``uid``."""
    return [pid for pid, fields_ in _procs_of_uid(uid) if fields_[0] != "Z"]


def tasks_of_uid(uid: int) -> int:
    """Threads and processes of ``uid`` (what RLIMIT_NPROC counts)."""
    total = 0
    for pid in pids_of_uid(uid):
        with contextlib.suppress(OSError):
            total += len(os.listdir(f"/proc/{pid}/task"))
    return total


def process_tree(root: int) -> list[int]:
    """``root`` and its live descendants, via /proc/PID/task/TID/children."""
    seen, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.append(pid)
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            text = read_proc(pid, f"task/{tid}/children") or ""
            todo.extend(int(c) for c in text.split())
    return seen


def kill_uid(uid: int, rounds: int = 200) -> bool:
    """SIGKILL every process of ``uid`` until none is left; True when none is."""
    me = os.getpid()
    for _ in range(rounds):
        pids = pids_of_uid(uid)
        if not pids:
            _reap_orphans(uid, me)
            return True
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        # A killed process cannot fork any more; a child forked before the kill shows up next round.
        time.sleep(0.001)
    log.error("processes of uid %s survived %s kill rounds", uid, rounds)
    return False


def _reap_orphans(uid: int, me: int) -> None:
    """Reap zombies of ``uid`` re-parented to this subreaper (only those, not other children)."""
    for pid, st in _procs_of_uid(uid):
        if st[0] == "Z" and int(st[1]) == me:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)


_subreaper_set = False


def become_subreaper() -> None:
    """Make this process the reaper of its orphaned descendants (Linux prctl), once."""
    global _subreaper_set
    if _subreaper_set:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_child_subreaper = 36
    if libc.prctl(pr_set_child_subreaper, 1, 0, 0, 0) != 0:
        log.warning("could not become a child subreaper: errno %s", ctypes.get_errno())
    _subreaper_set = True
