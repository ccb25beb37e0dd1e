"""A bot's /tmp and /dev/shm as tmpfs mounts with a size and an inode cap, made by the worker.

bubblewrap's own ``--tmpfs`` takes a size but no inode limit, and each inode
(an empty file) costs kernel memory: a few hundred thousand empty files are
hundreds of MiB that no size limit sees.  A worker that may mount (root with
CAP_SYS_ADMIN in its mount namespace) therefore mounts both file systems
itself in the slot's directory, with ``nr_inodes``, and binds them into the
sandbox; it unmounts them when the bot is gone.  Elsewhere the sandbox falls
back to ``--tmpfs`` (where a memory cgroup still counts the inodes).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import logging
import os
import shutil
from pathlib import Path

log = logging.getLogger(__name__)

_MS_NOSUID, _MS_NODEV = 0x2, 0x4
_MNT_DETACH = 0x2
_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


def mount_tmpfs(path: Path, size_bytes: int, inodes: int, uid: int) -> None:
    """Mount a fresh tmpfs at ``path`` owned by ``uid``, with a size and an inode cap (OSError if refused)."""
    options = f"size={size_bytes},nr_inodes={inodes},mode=0700,uid={uid},gid={uid}"
    if _libc.mount(b"tmpfs", str(path).encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options.encode()) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"cannot mount a tmpfs at {path}: {os.strerror(err)}")


def unmount(path: Path) -> None:
    """Detach whatever is mounted at ``path`` (nothing mounted: nothing done)."""
    if _libc.umount2(str(path).encode(), _MNT_DETACH) != 0:
        err = ctypes.get_errno()
        if err not in (22, 2):  # EINVAL: not a mount point; ENOENT: no such path
            log.warning("cannot unmount %s: %s", path, os.strerror(err))


def remove_tree(path: Path) -> None:
    """Delete a slot's directory, unmounting its tmpfs mounts first (never deleting through them)."""
    for name in ("tmp", "shm"):
        unmount(path / name)
    shutil.rmtree(path, ignore_errors=True)


_can_mount: dict[str, bool] = {}


def can_mount(scratch: Path) -> bool:
    """Whether this worker may mount a tmpfs (tried once per directory, under ``scratch``)."""
    key = str(scratch)
    if key not in _can_mount:
        probe = scratch / "mount-probe"
        with contextlib.suppress(FileExistsError):
            probe.mkdir()
        try:
            mount_tmpfs(probe, 1 << 20, 16, os.geteuid())
        except OSError as exc:
            log.info("no tmpfs inode caps (%s): the sandbox's --tmpfs has a size limit only", exc.strerror)
            _can_mount[key] = False
        else:
            unmount(probe)
            _can_mount[key] = True
        with contextlib.suppress(OSError):
            probe.rmdir()
    return _can_mount[key]
