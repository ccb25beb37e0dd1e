"""A started bot: its pipes, its slot, what it uses, and how to end all of it."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from workers.match import SeatStatus
from workers.slots import Slot, kill_uid, process_tree, read_proc, stat_fields

log = logging.getLogger(__name__)

# What runtimes print when an allocation fails (Python, C++, C and others).
_MEMORY_WORDS = (b"memoryerror", b"bad_alloc", b"out of memory", b"cannot allocate memory", b"failed to allocate")

_CLK_TCK = os.sysconf("SC_CLK_TCK")


@dataclass
class Usage:
    """Resources a bot used, as far as they could be measured."""

    cpu_ms: int | None = None
    peak_rss_kb: int | None = None
    peak_vm_kb: int | None = None
    rss_now_kb: int | None = None


class BotProcess:
    """One started bot: its pipes, its slot, and how to measure and end it."""

    def __init__(
        self, popen: subprocess.Popen[bytes], slot: Slot | None, workdir: Path, sandboxed: bool, memory_mb: int
    ) -> None:
        self.popen = popen
        self.slot = slot
        self.workdir = workdir
        self.sandboxed = sandboxed
        self.memory_mb = memory_mb
        self.usage = Usage()
        self.rusage: object | None = None
        self.returncode: int | None = None

    @property
    def pid(self) -> int:
        return self.popen.pid

    def sample(self) -> None:
        """Fold the current CPU time and memory of the bot's process tree into :attr:`usage`."""
        cpu_ticks, rss_sum, hwm, vm_peak, any_seen = 0, 0, 0, 0, False
        for pid in process_tree(self.popen.pid):
            st = stat_fields(pid)
            status = read_proc(pid, "status")
            if st is None or status is None:
                continue
            any_seen = True
            # utime, stime and the times of reaped children (fields 14-17 of stat).
            cpu_ticks += sum(int(x) for x in st[11:15])
            for line in status.splitlines():
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM", "VmPeak"):
                    kb = int(value.split()[0])
                    if key == "VmRSS":
                        rss_sum += kb
                    elif key == "VmHWM":
                        hwm = max(hwm, kb)
                    else:
                        vm_peak = max(vm_peak, kb)
        if not any_seen:
            return
        u = self.usage
        u.cpu_ms = max(u.cpu_ms or 0, cpu_ticks * 1000 // _CLK_TCK)
        u.peak_rss_kb = max(u.peak_rss_kb or 0, rss_sum, hwm)
        u.peak_vm_kb = max(u.peak_vm_kb or 0, vm_peak)
        u.rss_now_kb = rss_sum

    def total_memory_kb(self) -> int:
        """Proportional resident memory of the whole tree (pages shared after fork counted once)."""
        total = 0
        for pid in process_tree(self.popen.pid):
            for line in (read_proc(pid, "smaps_rollup") or "").splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        return total

    def over_memory(self) -> bool:
        """True when all the bot's processes together hold more than the memory limit.

        RLIMIT_AS bounds each process; without this a bot could multiply it by forking.  Cheap
        RSS sums from :meth:`sample` trigger the check, the proportional sum confirms it.
        """
        limit_kb = self.memory_mb * 1024
        return (self.usage.rss_now_kb or 0) > limit_kb and self.total_memory_kb() > limit_kb

    def exit_signal(self) -> int | None:
        """The signal that killed the bot, once it has exited (bwrap reports it as 128 + signal)."""
        code = self.returncode
        if code is None:
            return None
        if code < 0:
            return -code
        return code - 128 if self.sandboxed and code > 128 else None

    def limit_hit(self, stderr: bytes, cpu_limit_s: int) -> SeatStatus | None:
        """``MEMORY_LIMIT`` or ``TIMEOUT`` when a dead bot's end looks like one of its limits, else None.

        Memory: stderr names an out-of-memory error, or a kill/segfault/abort/bus error came after
        some process had reserved 90% of the address-space limit.  CPU: SIGXCPU or SIGKILL once
        the measured CPU time is within 0.2 s of RLIMIT_CPU.
        """
        sig = self.exit_signal()
        err = stderr.lower()
        near_memory = (self.usage.peak_vm_kb or 0) >= self.memory_mb * 1024 * 0.9
        if any(word in err for word in _MEMORY_WORDS) or (
            sig in (signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS) and near_memory
        ):
            return SeatStatus.MEMORY_LIMIT
        if sig in (signal.SIGXCPU, signal.SIGKILL) and (self.usage.cpu_ms or 0) >= cpu_limit_s * 1000 - 200:
            return SeatStatus.TIMEOUT
        return None

    def poll(self) -> int | None:
        """The exit status once the top process has exited (reaped with wait4 for its rusage)."""
        if self.returncode is not None:
            return self.returncode
        try:
            pid, status, rusage = os.wait4(self.popen.pid, os.WNOHANG)
        except ChildProcessError:
            self.returncode = self.popen.poll() if self.popen.returncode is None else self.popen.returncode
            return self.returncode
        if pid == 0:
            return None
        self._reaped(status, rusage)
        return self.returncode

    def _reaped(self, status: int, rusage: object) -> None:
        self.returncode = os.waitstatus_to_exitcode(status)
        self.popen.returncode = self.returncode
        self.rusage = rusage
        u = self.usage
        cpu = int((rusage.ru_utime + rusage.ru_stime) * 1000)  # type: ignore[attr-defined]
        u.cpu_ms = max(u.cpu_ms or 0, cpu)
        # Not ru_maxrss: it counts the worker's own size, copied into the child before exec.

    def holds_pipe(self, fd: int) -> bool:
        """Whether any process of the bot itself (not bwrap's) still has the pipe of ``fd`` open."""
        target = f"pipe:[{os.fstat(fd).st_ino}]"
        for pid in process_tree(self.popen.pid):
            if (read_proc(pid, "comm") or "").strip() == "bwrap":
                continue
            try:
                links = os.listdir(f"/proc/{pid}/fd")
            except OSError:
                continue
            for name in links:
                try:
                    if os.readlink(f"/proc/{pid}/fd/{name}") == target:
                        return True
                except OSError:
                    continue
        return False

    def set_nice(self, value: int) -> None:
        """Renice every process of the bot's slot at once (a bot not on move yields the CPU)."""
        if self.slot is not None:
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_USER, self.slot.uid, value)

    def wait(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for the top process to exit."""
        deadline = time.monotonic() + timeout
        pause = 0.0005
        while True:
            code = self.poll()
            if code is not None or time.monotonic() >= deadline:
                return code
            time.sleep(pause)
            pause = min(pause * 2, 0.01)

    def kill(self) -> None:
        """Kill everything the bot started, reap what is ours, free the slot."""
        self.sample()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        if self.slot is not None:
            kill_uid(self.slot.uid)
        self.wait(5.0)
        if self.returncode is None:
            log.error("bot process %s did not die after SIGKILL", self.popen.pid)

    def cleanup(self) -> None:
        """Close the pipes, release the slot and delete the per-match copy (after :meth:`kill`)."""
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        if self.slot is not None:
            self.slot.release()
            self.slot = None
        shutil.rmtree(self.workdir, ignore_errors=True)
