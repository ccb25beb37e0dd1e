"""Holds memory that no process maps (SysV shm, a memfd, tmpfs files or empty files), then plays on.

``params.json``: ``how`` (shm, memfd, tmpfs or inodes) and ``mib`` (how much).
Reports ``HELD:<MiB or files>`` when it got there and ``REFUSED:<error>`` when refused.
"""

import ctypes
import os

from arbiter_common import PARAMS, play, report

kept = []

MIB = 1 << 20
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget.restype = ctypes.c_int
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]


def shm(mib):
    # Segments of 64 MiB, each filled through a short mapping: the address-space limit never
    # sees more than one at a time, and IPC_PRIVATE segments live on once detached.
    for _ in range(mib // 64):
        sid = libc.shmget(0, 64 * MIB, 0o600)
        if sid < 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        addr = libc.shmat(sid, None, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        ctypes.memset(addr, 1, 64 * MIB)
        libc.shmdt(addr)
    return mib


def memfd(mib):
    # Files of 16 MiB (the file-size limit), kept open: the pages stay, mapped by nobody.
    chunk, fds = b"x" * MIB, kept
    for i in range(mib):
        if i % 16 == 0:
            fds.append(os.memfd_create("hoard"))
        os.write(fds[-1], chunk)
    return mib


def tmpfs(mib):
    chunk = b"x" * MIB
    for i in range(0, mib, 16):
        with open(f"/tmp/hoard{i}", "wb") as f:
            for _ in range(16):
                f.write(chunk)
    return mib


def inodes(count):
    os.mkdir("/tmp/many")
    for i in range(count):
        open(f"/tmp/many/{i}", "w").close()
    return count


def start(msg):
    try:
        report("HELD", globals()[PARAMS["how"]](PARAMS["mib"]))
    except OSError as exc:
        report("REFUSED", exc)


play(on_start=start)
