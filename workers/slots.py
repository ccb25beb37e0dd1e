"""A pool of sandbox slots: one unprivileged uid/gid per concurrently running bot.

Each slot is a lock file under the runtime directory, held with ``flock`` for
as long as a bot runs under that uid.  ``flock`` locks belong to an open file
description, so two worker processes, and two threads of one process, never
hold the same slot; a crashed worker's locks vanish with its file descriptors.
"""

from __future__ import annotations

import fcntl
import os
import time
from dataclasses import dataclass, field
from pathlib import Path


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


def acquire_slot(runtime_dir: Path, first_uid: int, count: int, wait_s: float = 30.0) -> Slot:
    """Lock the first free slot of ``count`` uids starting at ``first_uid``.

    Waits up to ``wait_s`` seconds for one to free up, then raises NoFreeSlotError.
    """
    lock_dir = ensure_private_dir(runtime_dir / "slots", 0o700)
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
