"""A slot's directory: the bot's copy, and its /tmp and /dev/shm as tmpfs mounts with an inode cap.

bubblewrap's own ``--tmpfs`` takes a size but no inode limit, and each inode
(an empty file) costs kernel memory: a few hundred thousand empty files are
hundreds of MiB that no size limit sees.  A worker that may mount (root with
CAP_SYS_ADMIN in its mount namespace) therefore mounts both file systems
itself in the slot's directory, with ``nr_inodes``, and binds them into the
sandbox; it unmounts them when the bot is gone.  Elsewhere the sandbox falls
back to ``--tmpfs`` (where a memory cgroup still counts the inodes).

These file systems belong to root and only their top directory to the
slot, so that their options in the bot's mount table name no slot uid.  The
bot's copy, the engines and the static /proc files are in a third tmpfs of
the bot's own, its view (``workers.sandbox.view``).

Directories are made once per slot and kept: removing one is slow on some
disks (milliseconds per rmdir), so a copy made on disk (by a worker that may
not mount) goes to the worker's trash (``workers.sandbox.trash``), emptied by
a thread of its own, off every bot's path.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import logging
import os
from pathlib import Path

from workers.sandbox import trash

log = logging.getLogger(__name__)

_MS_NOSUID, _MS_NODEV, _MS_REMOUNT = 0x2, 0x4, 0x20
_MNT_DETACH = 0x2
_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


# The mounts in a slot's directory, made for each bot and detached when it is gone.
VIEW_DIR = "view"
SLOT_MOUNTS = ("tmp", "shm", VIEW_DIR)


def mount_tmpfs(path: Path, size_bytes: int, inodes: int, uid: int, mode: int = 0o700) -> None:
    """Mount a fresh tmpfs at ``path`` whose top directory ``uid`` owns, with a size and an inode cap.

    OSError if refused.  The file system is root's (no ``uid=`` in its options), its top
    directory is given to ``uid`` afterwards.
    """
    options = f"size={size_bytes},nr_inodes={inodes},mode={mode:04o}"
    if _libc.mount(b"tmpfs", str(path).encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options.encode()) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"cannot mount a tmpfs at {path}: {os.strerror(err)}")
    try:
        os.chown(path, uid, uid)
    except OSError:
        unmount(path)
        raise


def resize_tmpfs(path: Path, size_bytes: int, inodes: int) -> None:
    """Give the tmpfs mounted at ``path`` a new size and inode cap (OSError if refused or too small)."""
    options = f"size={size_bytes},nr_inodes={inodes}"
    flags = _MS_REMOUNT | _MS_NOSUID | _MS_NODEV
    if _libc.mount(b"tmpfs", str(path).encode(), b"tmpfs", flags, options.encode()) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"cannot resize the tmpfs at {path}: {os.strerror(err)}")


def unmount(path: Path) -> None:
    """Detach whatever is mounted at ``path`` (nothing mounted: nothing done)."""
    if _libc.umount2(str(path).encode(), _MNT_DETACH) != 0:
        err = ctypes.get_errno()
        if err not in (errno.EINVAL, errno.ENOENT):  # not a mount point, or no such path
            log.warning("cannot unmount %s: %s", path, os.strerror(err))


def prepare_slot_dir(workdir: Path, mount: dict[str, int] | None, inodes: int, uid: int) -> None:
    """Make ``workdir`` (kept between bots) and, with ``mount`` ({"tmp": bytes, "shm": bytes}), fresh tmpfs mounts.

    Whatever a previous holder of the slot left mounted there is detached first.
    """
    with contextlib.suppress(FileExistsError):
        os.mkdir(workdir, 0o711)
    if mount is None:
        return
    for name, size in mount.items():
        path = workdir / name
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)
        unmount(path)
        mount_tmpfs(path, size, inodes, uid)


def release_slot_dir(workdir: Path, botdir: Path, keep: bool) -> None:
    """Unmount the bot's /tmp, /dev/shm and view (their memory goes at once) and discard a copy on disk.

    ``keep``: the directory is a slot's and stays for the next bot (else it goes as well).
    """
    for name in SLOT_MOUNTS:
        unmount(workdir / name)
    trash.discard(botdir if keep else workdir, workdir.parent / "trash")


def unmount_all_under(root: Path) -> None:
    """Detach every mount below ``root`` (a runtime directory about to be deleted)."""
    prefix = str(root.resolve()).rstrip("/") + "/"
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        point = line.split()[4].replace("\\040", " ")
        if point.startswith(prefix):
            unmount(Path(point))


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
