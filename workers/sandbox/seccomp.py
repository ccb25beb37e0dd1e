"""A classic-BPF seccomp filter for bots, generated in pure Python.

bubblewrap loads the program given with ``--seccomp FD`` just before it runs
the bot, so no libseccomp binding is needed: the filter is a handful of
``struct sock_filter`` records packed here.  Denied calls fail with ``EPERM``
(``clone3`` with ``ENOSYS`` so that libc falls back to ``clone``, whose flags
a classic filter can inspect); everything else is allowed.  Only x86-64 has a
syscall table here; :func:`build_filter` returns None on other machines and
the sandbox then runs without a filter (namespaces and rlimits still apply).

Some rules exist so that the referee can tell what a bot did from what was
done to it (``workers.sandbox.deaths``, ``workers.sandbox.stalls``).  A bot may
not send SIGKILL or a stop signal (to anyone, itself included), nor arrange
for the kernel to send one later: no such signal as a child's exit signal
(``clone``), for ready I/O (``fcntl F_SETSIG``) or for its parent's death
(``prctl PR_SET_PDEATHSIG``); no POSIX timer or message-queue notification
with a signal of its choosing (``timer_create`` and ``mq_notify`` with a
``sigevent``: the number hides behind a pointer a classic filter cannot
follow); no pseudo-terminal (``unlockpt`` is refused), so no terminal's job
control stops it either.  It may not change its resource limits
(``setrlimit``, ``prlimit64`` with a new limit): a CPU limit it lowered would
have the kernel SIGKILL it.  And it may not exit with a status of 128 or more
(the process is killed with SIGSYS instead).  So when bubblewrap reports
"killed by SIGKILL" (status 137) it was the kernel at a limit the worker set
(memory or CPU, both visible in the bot's counters) or something outside the
sandbox, never the bot; and a bot process in the stopped state was stopped
from outside.

SysV IPC objects and memfd files hold memory that no process maps, which a
per-process limit never sees: unless shared memory is allowed (where the
memory cgroup counts it), ``shmget``, ``semget``, ``msgget``,
``memfd_create`` and ``memfd_secret`` fail with ``EPERM``.

Four calls report figures of the whole machine that no namespace narrows:
``sysinfo`` (free memory, process count, load), ``statfs`` and ``fstatfs``
(the free blocks and inodes of the host's disks behind ``/usr`` and every
bind), ``ustat`` (the same by device).  What one bot moves there another
can read, so they fail with ``ENOSYS``, as on a kernel without them: no
runtime needs them to start (python3, node, the JVM, gcc and a C program
were traced), and glibc's ``pathconf`` and ``fpathconf`` fall back to their
defaults on ``ENOSYS`` (not on ``EPERM``).  glibc's ``sysconf(_SC_PHYS_PAGES)``
ignores the failure and returns a meaningless number; docs/bots.md says to
read ``/proc/meminfo`` (the bot's own limit) instead.
"""

from __future__ import annotations

import errno
import os
import platform
import struct

# BPF opcodes (linux/bpf_common.h) and seccomp return values (linux/seccomp.h).
_LD_W_ABS = 0x20
_ALU_AND_K = 0x54
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_RET_KILL_PROCESS = 0x80000000

_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_SYSCALL_BIT = 0x40000000

# Offsets in struct seccomp_data: nr, arch, instruction pointer, then six u64 args
# (little-endian, so an argument's low 32 bits come first).
_OFF_NR = 0
_OFF_ARCH = 4


def _arg_low(index: int) -> int:
    return 16 + 8 * index


_X86_64_DENIED = {
    "ptrace": 101,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "acct": 163,
    "init_module": 175,
    "delete_module": 176,
    "quotactl": 179,
    "kexec_load": 246,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "unshare": 272,
    "perf_event_open": 298,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "setns": 308,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "finit_module": 313,
    "bpf": 321,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    # A bot's resource limits are the worker's: lowered, RLIMIT_CPU would have the kernel SIGKILL it.
    "setrlimit": 160,
}
_X86_64 = {
    "socket": 41,
    "ioctl": 16,
    "clone": 56,
    "clone3": 435,
    "exit": 60,
    "exit_group": 231,
    "prlimit64": 302,
    "fcntl": 72,
    "prctl": 157,
    "timer_create": 222,
    "mq_notify": 244,
}
# Memory held outside any process's address space (see the module docstring).
_X86_64_SHARED_MEMORY = {"shmget": 29, "semget": 64, "msgget": 68, "memfd_create": 319, "memfd_secret": 447}
# Figures of the whole machine (see the module docstring): they fail with ENOSYS.
_X86_64_HOST_FIGURES = {"sysinfo": 99, "ustat": 136, "statfs": 137, "fstatfs": 138}
# Calls that send a signal, and which argument is the signal number.
_X86_64_SIGNALLING = {
    "kill": (62, 1),
    "rt_sigqueueinfo": (129, 1),
    "tkill": (200, 1),
    "tgkill": (234, 2),
    "rt_tgsigqueueinfo": (297, 2),
    "pidfd_send_signal": (424, 1),
}
# SIGKILL and the stop signals (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU): only the kernel or the
# outside world may end or freeze a bot with these.
_RESERVED_SIGNALS = (9, 19, 20, 21, 22)

_AF_UNIX = 1
_TIOCSTI = 0x5412
_TIOCLINUX = 0x541C
_TIOCSPTLCK = 0x40045431  # unlockpt(): a pseudo-terminal's other end opens only once unlocked
_F_SETSIG = 10
_PR_SET_PDEATHSIG = 1
_CSIGNAL = 0xFF  # the low byte of clone's flags: the signal the parent gets when the child exits
# Every CLONE_NEW* flag: a bot may fork and start threads, never new namespaces.
_CLONE_NEW_ANY = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000


class _Assembler:
    """Forward-only BPF with symbolic jump targets, resolved on :meth:`program`."""

    def __init__(self) -> None:
        self.code: list[tuple[int, object, object, int]] = []
        self.labels: dict[str, int] = {}

    def op(self, code: int, k: int, jt: object = 0, jf: object = 0) -> None:
        self.code.append((code, jt, jf, k))

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def _offset(self, target: object, index: int) -> int:
        if isinstance(target, int):
            return target
        delta = self.labels[str(target)] - index - 1
        if not 0 <= delta <= 255:
            raise ValueError(f"BPF jump to {target} out of range: {delta}")
        return delta

    def program(self) -> bytes:
        out = bytearray()
        for i, (code, jt, jf, k) in enumerate(self.code):
            out += struct.pack("<HBBI", code, self._offset(jt, i), self._offset(jf, i), k & 0xFFFFFFFF)
        return bytes(out)


def _argument_checks(a: _Assembler) -> None:
    """The calls allowed or denied by their arguments (each block ends in a jump to a verdict)."""
    # socket(): only local (AF_UNIX) sockets; no network families, no netlink, no packet.
    a.label("socket")
    a.op(_LD_W_ABS, _arg_low(0))
    a.op(_JEQ_K, _AF_UNIX, "allow", "eperm")

    # ioctl(): no pushing keystrokes into a terminal, no pseudo-terminal (whose job control
    # could stop a process of the bot: see the module docstring).
    a.label("ioctl")
    a.op(_LD_W_ABS, _arg_low(1))
    a.op(_JEQ_K, _TIOCSTI, "eperm", 0)
    a.op(_JEQ_K, _TIOCSPTLCK, "eperm", 0)
    a.op(_JEQ_K, _TIOCLINUX, "eperm", "allow")

    # clone(): no new namespaces, and no reserved signal as the child's exit signal.
    a.label("clone")
    a.op(_LD_W_ABS, _arg_low(0))
    a.op(_JSET_K, _CLONE_NEW_ANY, "eperm", 0)
    a.op(_ALU_AND_K, _CSIGNAL)
    _reserved_is_eperm(a)

    # fcntl(F_SETSIG) and prctl(PR_SET_PDEATHSIG): no reserved signal sent by the kernel later.
    for name, which_arg, command, signal_arg in (
        ("fcntl", 1, _F_SETSIG, 2),
        ("prctl", 0, _PR_SET_PDEATHSIG, 1),
    ):
        a.label(name)
        a.op(_LD_W_ABS, _arg_low(which_arg))
        a.op(_JEQ_K, command, 0, "allow")
        a.op(_LD_W_ABS, _arg_low(signal_arg))
        _reserved_is_eperm(a)

    # prlimit64() with a new limit (argument 2), timer_create() and mq_notify() with a sigevent
    # (argument 1): refused whenever the pointer is not NULL.
    for name, arg in (("prlimit64", 2), ("timer_create", 1), ("mq_notify", 1)):
        a.label(name)
        a.op(_LD_W_ABS, _arg_low(arg))
        a.op(_JEQ_K, 0, 0, "eperm")
        a.op(_LD_W_ABS, _arg_low(arg) + 4)
        a.op(_JEQ_K, 0, "allow", "eperm")

    # exit(), exit_group(): a status of 128 or more would read like a death by signal.
    a.label("exit")
    a.op(_LD_W_ABS, _arg_low(0))
    a.op(_ALU_AND_K, 0xFF)
    a.op(_JGE_K, 128, "kill", "allow")

    # The signal-sending calls: SIGKILL and the stop signals are the outside world's.
    for arg in sorted({arg for _nr, arg in _X86_64_SIGNALLING.values()}):
        a.label(f"signal_arg{arg}")
        a.op(_LD_W_ABS, _arg_low(arg))
        _reserved_is_eperm(a)


def _reserved_is_eperm(a: _Assembler) -> None:
    """EPERM when the loaded word is SIGKILL or a stop signal, else allow."""
    for signo in _RESERVED_SIGNALS:
        a.op(_JEQ_K, signo, "eperm", 0)
    a.op(_RET_K, _RET_ALLOW)


def build_filter(machine: str | None = None, *, shared_memory: bool = False) -> bytes | None:
    """The packed filter for this machine, or None where no syscall table is known.

    ``shared_memory`` lets SysV IPC and memfd through (only where a memory cgroup counts them).
    """
    machine = machine or platform.machine()
    if machine not in ("x86_64", "amd64", "AMD64"):
        return None
    a = _Assembler()
    a.op(_LD_W_ABS, _OFF_ARCH)
    # A 32-bit (i386 ABI) call would use other numbers: refuse any other ABI outright.
    a.op(_JEQ_K, _AUDIT_ARCH_X86_64, 0, "kill")
    a.op(_LD_W_ABS, _OFF_NR)
    a.op(_JGE_K, _X32_SYSCALL_BIT, "eperm", 0)
    denied = set(_X86_64_DENIED.values())
    if not shared_memory:
        denied |= set(_X86_64_SHARED_MEMORY.values())
    for nr in sorted(denied):
        a.op(_JEQ_K, nr, "eperm", 0)
    for nr in sorted(_X86_64_HOST_FIGURES.values()):
        a.op(_JEQ_K, nr, "enosys", 0)
    a.op(_JEQ_K, _X86_64["socket"], "socket", 0)
    a.op(_JEQ_K, _X86_64["ioctl"], "ioctl", 0)
    a.op(_JEQ_K, _X86_64["clone"], "clone", 0)
    a.op(_JEQ_K, _X86_64["clone3"], "enosys", 0)
    a.op(_JEQ_K, _X86_64["exit"], "exit", 0)
    a.op(_JEQ_K, _X86_64["exit_group"], "exit", 0)
    for name in ("prlimit64", "fcntl", "prctl", "timer_create", "mq_notify"):
        a.op(_JEQ_K, _X86_64[name], name, 0)
    for nr, arg in _X86_64_SIGNALLING.values():
        a.op(_JEQ_K, nr, f"signal_arg{arg}", 0)
    a.op(_RET_K, _RET_ALLOW)

    _argument_checks(a)

    a.label("allow")
    a.op(_RET_K, _RET_ALLOW)
    a.label("eperm")
    a.op(_RET_K, _RET_ERRNO | errno.EPERM)
    a.label("enosys")
    a.op(_RET_K, _RET_ERRNO | errno.ENOSYS)
    a.label("kill")
    a.op(_RET_K, _RET_KILL_PROCESS)
    return a.program()


def filter_fd(program: bytes) -> int:
    """A readable file descriptor holding ``program`` at offset 0 (for ``bwrap --seccomp`` or ``--args``).

    Not close-on-exec: the caller passes it to bwrap and closes its own copy.
    """
    fd = os.memfd_create("arbiter-seccomp", 0)
    try:
        os.write(fd, program)
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd
