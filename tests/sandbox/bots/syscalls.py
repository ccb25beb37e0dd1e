"""Tries calls the seccomp filter denies: TIOCSTI, ptrace, unshare, mount, keyctl, bpf, userfaultfd."""

import ctypes
import fcntl
import os
import termios

from arbiter_common import leak, play, report

libc = ctypes.CDLL(None, use_errno=True)
CALLS = {  # x86-64 numbers; arguments chosen so success would be observable
    "ptrace_traceme": (101, 0, 0, 0, 0),
    "unshare_user": (272, 0x10000000, 0, 0, 0),
    "unshare_net": (272, 0x40000000, 0, 0, 0),
    "mount": (165, 0, 0, 0, 0),
    "keyctl": (250, 0, 0, 0, 0),
    "bpf": (321, 0, 0, 0, 0),
    "userfaultfd": (323, 0, 0, 0, 0),
    "setns": (308, 0, 0, 0, 0),
}


def start(msg):
    for fd_path in (0, "/dev/tty"):
        try:
            fd = fd_path if isinstance(fd_path, int) else os.open(fd_path, os.O_RDWR)
            fcntl.ioctl(fd, termios.TIOCSTI, b"x")
            leak(f"TIOCSTI on {fd_path}")
        except OSError as exc:
            report("DENIED", f"TIOCSTI {fd_path}: {exc}")
    for name, (nr, *args) in CALLS.items():
        result = libc.syscall(nr, *args)
        errno = ctypes.get_errno()
        if result == 0 and name in ("ptrace_traceme", "unshare_user", "unshare_net"):
            leak(f"{name} succeeded")
        report("SYSCALL", f"{name}={result} errno={errno}")


play(on_start=start)
