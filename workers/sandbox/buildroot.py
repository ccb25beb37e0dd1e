"""A build's own file systems: ``/bot``, ``/tmp`` and ``/dev/shm`` mounted in a user namespace of its own.

A build writes its program into ``/bot``, so the kernel must hold it to a size
and a file count (``ARBITER_BUILD_DISK_MB``, ``ARBITER_BUILD_FILES``): a tmpfs
with ``size=`` and ``nr_inodes=``.  bubblewrap's ``--size``/``--tmpfs`` gives
the size but no inode cap, and the worker itself may not mount at all (a
container without ``CAP_SYS_ADMIN``, as in the compose file).  No capability
is needed, though, to make a user namespace with a mount namespace and mount
a tmpfs in it.  So a build starts one step earlier than a bot::

    setpriv --reuid SLOT ... -- python3 -I -S RUNTIME/buildroot-HASH.py SPEC -- bwrap ... -- BUILD

This file (copied into the runtime directory), run as the slot's uid
(``main``), unshares a user and a mount namespace (mapping only its own
uid), mounts the three tmpfs there with their
caps, copies the sources from the worker's copy into ``/bot``, hands an open
descriptor of that ``/bot`` to the worker over a Unix socket, and execs
bubblewrap, which binds the three into the sandbox.  On exec the child's
capabilities in its namespace are gone (its uid is not 0 there), and the
build, one user namespace further down, has none over these mounts: it can
neither remount them bigger nor unmount them.  The worker (``receive``) checks
that the descriptor comes from its own child and reads the build's result
through it once the build is over, after the namespace itself has gone.

Only the standard library is imported: the child runs with ``-I -S``, without
the worker's environment.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import hashlib
import json
import os
import select
import shutil
import socket
import stat
import struct
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# Mount points in a slot's directory (empty in the worker's own mount namespace).
BOT, TMP, SHM = "build-bot", "build-tmp", "build-shm"
DIRS = (BOT, TMP, SHM)
_CLONE_NEWNS, _CLONE_NEWUSER = 0x00020000, 0x10000000
_MS_NOSUID, _MS_NODEV, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x4000, 1 << 18
_EXIT_SETUP = 125  # the child could not set the build up (the machine's fault, never the author's)


def child_argv(python: str, workdir: Path, source: Path, handoff: str, sizes: dict[str, tuple[int, int]]) -> list[str]:
    """The child's command (before bubblewrap's): mount ``sizes`` ({name: (bytes, inodes)}), copy ``source``."""
    spec = {
        "mounts": [
            [str(workdir / name), size, inodes, 0o755 if name == BOT else 0o700]
            for name, (size, inodes) in sizes.items()
        ],
        "bot": str(workdir / BOT),
        "source": str(source),
        "handoff": handoff,
    }
    return [python, "-I", "-S", str(install(workdir.parent)), json.dumps(spec), "--"]


def make_mount_points(workdir: Path) -> None:
    """The (kept) mount points of a build in the slot's directory ``workdir``, where missing."""
    for name in DIRS:
        with contextlib.suppress(FileExistsError):
            os.mkdir(workdir / name, 0o755)


def install(runtime: Path) -> Path:
    """This file, copied into the runtime directory, where every slot's uid can read it (the checkout may
    not be readable there).  Named by its content, like the engines' copy, so that worker processes
    sharing the directory share it and a new version gets a new one; made with the launch plan, once.
    """
    text = Path(__file__).read_bytes()
    target = runtime / f"buildroot-{hashlib.sha256(text).hexdigest()[:16]}.py"
    if not target.is_file():
        fd, staging = tempfile.mkstemp(prefix="buildroot-", dir=runtime)
        with os.fdopen(fd, "wb") as file:
            file.write(text)
        os.chmod(staging, 0o644)
        os.replace(staging, target)
    return target


def listen(path: Path) -> socket.socket:
    """The worker's end: a socket at ``path`` that the slot's uid may connect to (it cannot be chowned to it)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    try:
        listener.bind(str(path))
        os.chmod(path, 0o666)
        listener.listen(1)
    except BaseException:
        listener.close()
        raise
    return listener


def receive(listener: socket.socket, child_pid: int, alive: Callable[[], bool], timeout: float) -> int:
    """The descriptor of ``/bot`` sent by process ``child_pid``; OSError if it ends or ``timeout`` passes first.

    ``alive``: a callable telling whether the child still runs.  Anything connecting from
    another process is turned away (only the worker's own child may hand a directory over).
    """
    deadline = time.monotonic() + timeout
    while True:
        ready, _, _ = select.select([listener], [], [], 0.05)
        if ready:
            conn, _ = listener.accept()
            with conn:
                conn.settimeout(max(0.1, deadline - time.monotonic()))
                pid, _uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
                if pid != child_pid:
                    continue
                _, fds, _, _ = socket.recv_fds(conn, 1, 1)
                if len(fds) == 1 and stat.S_ISDIR(os.fstat(fds[0]).st_mode):
                    return fds[0]
                for fd in fds:
                    os.close(fd)
                raise OSError("the build's sandbox handed over no directory")
        if not alive() or time.monotonic() > deadline:
            raise OSError("the build's sandbox ended before it handed /bot over")


# --- the child, as the slot's uid -------------------------------------------------------------------


def _fail(what: str) -> None:
    sys.stderr.write(f"arbiter build sandbox: {what}\n")
    sys.exit(_EXIT_SETUP)


def _own_namespace(libc: ctypes.CDLL) -> None:
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS) != 0:
        _fail(f"cannot make a user namespace: {os.strerror(ctypes.get_errno())}")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as file:
            file.write(text)
    # Nothing mounted here is seen outside (a new mount namespace under a new user is a slave already).
    if libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        _fail(f"cannot make the mounts private: {os.strerror(ctypes.get_errno())}")


def _mount(libc: ctypes.CDLL, path: str, size: int, inodes: int, mode: int) -> None:
    options = f"size={size},nr_inodes={inodes},mode={mode:04o}".encode()
    if libc.mount(b"tmpfs", path.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options) != 0:
        _fail(f"cannot mount a tmpfs at {path}: {os.strerror(ctypes.get_errno())}")


def _copy(source: str, dest: str) -> None:
    """The worker's copy into /bot: folders, files (mode 755 or 644) and links as links, nothing followed."""
    for root, dirs, files in os.walk(source):
        inside = os.path.join(dest, os.path.relpath(root, source))
        for name in [*dirs, *files]:
            src, dst = os.path.join(root, name), os.path.join(inside, name)
            info = os.lstat(src)
            if stat.S_ISLNK(info.st_mode):
                os.symlink(os.readlink(src), dst)
            elif stat.S_ISDIR(info.st_mode):
                os.mkdir(dst, 0o755)
            elif stat.S_ISREG(info.st_mode):
                shutil.copyfile(src, dst, follow_symlinks=False)
                os.chmod(dst, 0o755 if info.st_mode & 0o111 else 0o644)


def main(argv: list[str]) -> None:
    """Set the build's file systems up as described above, then exec ``argv`` after ``SPEC --``."""
    spec, rest = json.loads(argv[0]), argv[2:]
    libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    _own_namespace(libc)
    for path, size, inodes, mode in spec["mounts"]:
        _mount(libc, path, size, inodes, mode)
    try:
        _copy(spec["source"], spec["bot"])
        top = os.open(spec["bot"], os.O_RDONLY | os.O_DIRECTORY)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(spec["handoff"])
            socket.send_fds(conn, [b"/"], [top])
        os.close(top)
    except OSError as exc:
        _fail(f"cannot prepare /bot: {exc}")
    os.execv(rest[0], rest)


if __name__ == "__main__":
    main(sys.argv[1:])
