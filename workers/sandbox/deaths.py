"""How a bot's end is read: one of its limits, its own doing, or something outside the sandbox."""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING

from workers.match import SeatStatus

if TYPE_CHECKING:
    from workers.sandbox.process import BotProcess

# What runtimes print when an allocation fails (Python, C++, C and others).
_MEMORY_WORDS = (b"memoryerror", b"bad_alloc", b"out of memory", b"cannot allocate memory", b"failed to allocate")


def limit_hit(proc: BotProcess, stderr: bytes, cpu_limit_s: int) -> SeatStatus | None:
    """``MEMORY_LIMIT`` or ``TIMEOUT`` when a dead bot's end looks like one of its limits, else None.

    Memory: the control group's own limit killed a process; or (without one) stderr names an
    out-of-memory error, or a kill/segfault/abort/bus error came after some process had
    reserved 90% of the address-space limit.  CPU: SIGXCPU or SIGKILL once the measured CPU
    time is within 0.2 s of RLIMIT_CPU.
    """
    sig = proc.exit_signal()
    err = stderr.lower()
    if proc.over_memory():
        return SeatStatus.MEMORY_LIMIT
    near_memory = (proc.usage.peak_vm_kb or 0) >= proc.memory_mb * 1024 * 0.9
    if any(word in err for word in _MEMORY_WORDS) or (
        sig in (signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS) and near_memory
    ):
        return SeatStatus.MEMORY_LIMIT
    if sig in (signal.SIGXCPU, signal.SIGKILL) and (proc.usage.cpu_ms or 0) >= cpu_limit_s * 1000 - 200:
        return SeatStatus.TIMEOUT
    return None


def killed_from_outside(proc: BotProcess) -> str | None:
    """Why the bot's death was not its own doing (call after :meth:`limit_hit` said no limit), or None.

    Under the seccomp filter a bot can neither send SIGKILL, nor have the kernel send it one
    (no reserved signal as a child's exit signal, for I/O, on a parent's death, from a timer
    or a message queue; no change to its own limits, whose lowered CPU limit would end in a
    SIGKILL), nor fake its status, and the sandbox's first process is outside the bot's
    reach: so a death by SIGKILL that neither limit explains, or any signal death of that
    first process, came from outside.  So does an out-of-memory kill while the bot was under
    its own limit (the machine ran out).  Without the filter none of this holds, and such a
    death is the bot's own crash.
    """
    if not (proc.sandboxed and proc.filtered) or proc.returncode is None:
        return None
    if proc.group is not None:
        try:
            if proc.group.oom_killed() and not proc.group.reached_limit():
                return "the machine ran out of memory and the kernel killed the bot"
        except (OSError, ValueError):
            pass
    if proc.returncode < 0:
        return f"the sandbox's own process was killed by signal {-proc.returncode} from outside"
    if proc.exit_signal() == signal.SIGKILL:
        return "a bot process was killed by SIGKILL from outside the sandbox"
    return None
