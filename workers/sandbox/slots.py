"""A pool of sandbox slots: one unprivileged uid/gid per concurrently running bot, and their processes.

Each slot is a lock file in one machine-wide directory (``/run/arbiter/slots``
by default, whatever the installation's var dir), held with ``flock`` for as
long as a bot runs under that uid.  ``flock`` locks belong to an open file
description, so two worker processes, and two threads of one process, never
hold the same slot; a crashed worker's locks vanish with its file descriptors.

A locked slot is used only when no process of its uid exists at all: one that
does (another installation's bot, a leftover) makes the pool skip the slot,
log it and count it.  A slot is given back only once every process of its
bot is gone; one whose processes will not die stays locked (quarantined) and
is looked at again on the next acquisition.

Each worker process also registers its uid range in ``/run/arbiter/ranges``:
two installations whose ranges overlap must lock them in the same directory,
or the second one refuses to run bots (:class:`SlotRangeError`).

Without control groups "everything the bot started" is every process of the
slot's uid, found by scanning ``/proc`` (a double-forked ``setsid`` daemon
keeps its uid too).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import hashlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from workers.sandbox.ending import wait_exits

log = logging.getLogger(__name__)

RANGES_DIR = Path("/run/arbiter/ranges")
# How long a killed bot's processes may take to go (freeing a big tmpfs takes a while).
KILL_WAIT_S = 30.0
# Incidents since this process started, for logs and /healthz.
incidents = {"slot_uid_busy": 0, "slot_quarantined": 0}


class NoFreeSlotError(RuntimeError):
    """Every slot stayed busy for the whole wait."""


class SlotRangeError(RuntimeError):
    """This installation's uid range overlaps a live one whose slots are locked elsewhere."""


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


def uid_busy(uid: int) -> bool:
    """True when any process or thread of ``uid`` exists in this pid namespace (one system call)."""
    try:
        os.getpriority(os.PRIO_USER, uid)
    except ProcessLookupError:
        return False
    return True


_lock = threading.Lock()
_quarantine: list[tuple[Slot, Callable[[], bool]]] = []
_busy_logged: dict[int, float] = {}


def quarantine(slot: Slot, is_clear: Callable[[], bool]) -> None:
    """Keep ``slot`` locked until ``is_clear()``: its processes did not go when killed."""
    incidents["slot_quarantined"] += 1
    log.error("slot uid %s keeps processes after the kill: held back until they are gone", slot.uid)
    with _lock:
        _quarantine.append((slot, is_clear))


def _sweep_quarantine() -> None:
    with _lock:
        items = list(_quarantine)
    for item in items:
        slot, is_clear = item
        if is_clear():
            with _lock:
                _quarantine.remove(item)
            log.warning("slot uid %s is clear again and back in the pool", slot.uid)
            slot.release()


def _note_busy(uid: int) -> None:
    incidents["slot_uid_busy"] += 1
    now = time.monotonic()
    if now - _busy_logged.get(uid, -3600.0) >= 60:
        _busy_logged[uid] = now
        log.warning("slot uid %s skipped: processes of that uid exist outside this worker's control "
                    "(another installation or a leftover)", uid)  # fmt: skip


def acquire_slot(lock_dir: Path, first_uid: int, count: int, wait_s: float = 30.0) -> Slot:
    """Lock the first free slot of ``count`` uids starting at ``first_uid`` whose uid runs nothing.

    Every worker of a machine must use the same ``lock_dir``: a uid is only exclusive among
    those who lock it in the same place (:func:`register_range` refuses a conflicting one).
    Waits up to ``wait_s`` seconds for a slot to free up, then raises NoFreeSlotError.
    """
    lock_dir = ensure_private_dir(lock_dir, 0o700)
    register_range(lock_dir, first_uid, count)
    deadline = time.monotonic() + wait_s
    # Start at a per-process offset so concurrent workers rarely contend on the same files.
    start = os.getpid() % max(count, 1)
    while True:
        _sweep_quarantine()
        for i in range(count):
            uid = first_uid + (start + i) % count
            path = lock_dir / f"{uid}.lock"
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            if uid_busy(uid):
                os.close(fd)
                _note_busy(uid)
                continue
            return Slot(uid=uid, lock_path=path, _fd=fd)
        if time.monotonic() >= deadline:
            raise NoFreeSlotError(f"all {count} sandbox slots from uid {first_uid} are busy")
        time.sleep(0.05)


_registered: dict[tuple[str, int, int, str], int] = {}


def register_range(lock_dir: Path, first_uid: int, count: int, ranges_dir: Path = RANGES_DIR) -> None:
    """Record this process's uid range for the machine; SlotRangeError when it collides.

    Each worker process holds a shared lock on a file named after its range and lock
    directory for as long as it lives.  Another live file whose range overlaps ours but
    whose slots are locked in another directory means two installations would hand out
    the same uids: refused.  Ranges that share a lock directory share the slots safely.
    """
    key = (str(lock_dir), first_uid, count, str(ranges_dir))
    if key in _registered:
        return
    ensure_private_dir(ranges_dir.parent, 0o755)
    ensure_private_dir(ranges_dir, 0o755)
    last = first_uid + count - 1
    tag = hashlib.sha256(str(lock_dir.resolve()).encode()).hexdigest()[:12]
    fd = os.open(ranges_dir / f"{first_uid}-{last}.{tag}", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        os.pwrite(fd, str(lock_dir.resolve()).encode().ljust(512), 0)
        fcntl.flock(fd, fcntl.LOCK_SH)
        for entry in os.scandir(ranges_dir):
            _check_other(Path(entry.path), first_uid, last, tag)
    except BaseException:
        os.close(fd)
        raise
    _registered[key] = fd


def _check_other(path: Path, first: int, last: int, tag: str) -> None:
    span, _, other_tag = path.name.partition(".")
    low, _, high = span.partition("-")
    if other_tag == tag or not (low.isdigit() and high.isdigit()) or int(high) < first or int(low) > last:
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        where = os.pread(fd, 512, 0).decode(errors="replace").strip()
        raise SlotRangeError(
            f"sandbox uid range {first}-{last} overlaps the range {low}-{high} of another installation on this "
            f"machine, whose slots are locked in {where}: give each installation its own "
            "ARBITER_SANDBOX_FIRST_UID range, or the same ARBITER_SANDBOX_LOCK_DIR"
        ) from None
    else:
        path.unlink(missing_ok=True)  # nobody holds it: a stopped installation's record
    finally:
        os.close(fd)


def read_proc(pid: int, name: str) -> str | None:
    try:
        with open(f"/proc/{pid}/{name}", encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def stat_fields(pid: int, name: str = "stat") -> list[str] | None:
    """The fields of ``/proc/PID/<name>`` (``stat``, or ``task/TID/stat``) after the command's name; None once gone."""
    text = read_proc(pid, name)
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


def children_of(pid: int) -> list[int]:
    """The children of every thread of ``pid`` (/proc/PID/task/TID/children); empty once it is gone."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for tid in tids:
        found.extend(int(c) for c in (read_proc(pid, f"task/{tid}/children") or "").split())
    return found


def process_tree(root: int) -> list[int]:
    """``root`` and its live descendants, via /proc/PID/task/TID/children."""
    seen, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.append(pid)
        todo.extend(children_of(pid))
    return seen


def kill_uid(uid: int, timeout: float = KILL_WAIT_S) -> bool:
    """SIGKILL every process of ``uid`` until none is left; True when none is (False after ``timeout``).

    A process being killed can take a while to go (it frees its memory and files first):
    waiting by time, not by a count of rounds, lets it finish before the slot is reused.
    """
    me = os.getpid()
    deadline = time.monotonic() + timeout
    while True:
        pids = pids_of_uid(uid)
        if not pids:
            reap_orphans(uid, me)
            return True
        if time.monotonic() >= deadline:
            log.error("processes of uid %s survived %.0f s of SIGKILL: %s", uid, timeout, pids[:10])
            return False
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        # A killed process cannot fork any more; a child forked before the kill shows up next round,
        # after the kernel says one of these exited (at most a second: a pid may be reused).
        wait_exits(pids, min(deadline - time.monotonic(), 1.0))


def reap_orphans(uid: int, me: int) -> None:
    """Reap zombies of ``uid`` re-parented to this subreaper (only those, not other children)."""
    for pid, st in _procs_of_uid(uid):
        if st[0] == "Z" and int(st[1]) == me:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)


_subreaper_pid = 0


def become_subreaper() -> None:
    """Make this process the reaper of its orphaned descendants (Linux prctl), once per process.

    Remembered by pid: a child forked after the call (a Celery pool process
    forked from a main process that ran the sandbox self-test) is not a
    subreaper, though it inherits the memory that says so; its bots' orphans
    would go to the parent, which never reaps them.
    """
    global _subreaper_pid
    if _subreaper_pid == os.getpid():
        return
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_child_subreaper = 36
    if libc.prctl(pr_set_child_subreaper, 1, 0, 0, 0) != 0:
        log.warning("could not become a child subreaper: errno %s", ctypes.get_errno())
    _subreaper_pid = os.getpid()
