"""A started bot: its pipes, its slot, what it uses, and how to end all of it.

With a control group (``workers.sandbox.group``) the kernel does the accounting:
CPU time, memory (everything the bot's processes hold, shared memory and
tmpfs included), whether its own memory limit killed it.  Without one, the
numbers come from sampling /proc over the bot's process tree.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import select
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from workers.match import SeatStatus
from workers.sandbox import deaths, ending, mounts
from workers.sandbox.group import SlotGroup
from workers.sandbox.slots import (
    Slot,
    kill_uid,
    pids_of_uid,
    process_tree,
    quarantine,
    read_proc,
    stat_fields,
    uid_busy,
)
from workers.sandbox.stalls import Look, Stalls, bot_threads

log = logging.getLogger(__name__)

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
        self,
        popen: subprocess.Popen[bytes],
        slot: Slot | None,
        workdir: Path,
        sandboxed: bool,
        memory_mb: int,
        group: SlotGroup | None = None,
        filtered: bool = False,
        botdir: Path | None = None,
    ) -> None:
        self.popen = popen
        self.slot = slot
        self.workdir = workdir
        self.botdir = botdir or workdir / "bot"
        self.sandboxed = sandboxed
        self.memory_mb = memory_mb
        self.group = group
        # Under the seccomp filter a bot cannot send SIGKILL nor exit with 128+: see limit_hit.
        self.filtered = filtered
        self.usage = Usage()
        self.rusage: object | None = None
        self.returncode: int | None = None
        self.gone = False  # the kernel confirmed that no process of the bot is left
        self._cpu_ns = 0
        # The sandbox's init: it often outlives our child, bwrap, and is then ours to reap.
        self.inner: set[int] = set()
        self._stalls: Stalls | None = None
        self._stopped = False  # killed by stop(), not yet waited for
        self.final_usage: Usage | None = None

    @property
    def pid(self) -> int:
        return self.popen.pid

    def cpu_ns(self) -> int:
        """CPU time of all the bot's processes so far, in nanoseconds (never decreasing)."""
        if self.group is not None and not self.gone:
            with contextlib.suppress(OSError, ValueError):
                self._cpu_ns = max(self._cpu_ns, self.group.cpu_ns())
        elif self.group is None:
            self._cpu_ns = max(self._cpu_ns, self._tree_cpu_ticks() * 1_000_000_000 // _CLK_TCK)
        return self._cpu_ns

    def stalls(self) -> Look:
        """The bot's run-queue wait so far and whether it is stopped from outside (``workers.sandbox.stalls``)."""
        if self._stalls is None:
            # Only under the filter can the bot not stop itself (workers.sandbox.seccomp).
            self._stalls = Stalls(
                self._bot_threads,
                stops_are_outside=self.sandboxed and self.filtered,
                count=self._task_count,
                leave_out=self._bwraps,
            )
        return self._stalls.look()

    def _task_count(self) -> int | None:
        """The group's task count, which says when its thread list must be read again (None: always)."""
        return self.group.task_count() if self.group is not None and not self.gone else None

    def _bot_threads(self) -> list[int]:
        if self.gone:
            return []
        return bot_threads(self.group, self.popen.pid)

    def note_inner(self) -> None:
        """Remember bwrap's child, the sandbox's init (a kernel list, nothing the bot can write)."""
        if not self.inner and self.sandboxed:
            text = read_proc(self.popen.pid, f"task/{self.popen.pid}/children") or ""
            self.inner.update(int(p) for p in text.split())

    def _tree_cpu_ticks(self) -> int:
        total = 0
        for pid in process_tree(self.popen.pid):
            st = stat_fields(pid)
            if st is not None:
                # utime, stime and the times of reaped children (fields 14-17 of stat).
                total += sum(int(x) for x in st[11:15])
        return total

    def sample(self) -> None:
        """Fold the current CPU time and memory of the bot into :attr:`usage`."""
        if self.group is not None:
            if self.gone:
                return
            self.note_inner()
            try:
                u = self.usage
                u.cpu_ms = max(u.cpu_ms or 0, self.cpu_ns() // 1_000_000)
                u.peak_rss_kb = max(u.peak_rss_kb or 0, self.group.memory_peak() // 1024)
                u.rss_now_kb = self.group.memory_now() // 1024
            except (OSError, ValueError):
                pass
            return
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
        """True when all the bot's processes together went over the memory limit.

        With a control group: its own limit made the kernel kill one of them.  Without:
        RLIMIT_AS bounds each process, and a bot could multiply it by forking; cheap RSS sums
        from :meth:`sample` trigger the check, the proportional sum confirms it.
        """
        if self.group is not None:
            try:
                return not self.gone and self.group.oom_killed() and self.group.reached_limit()
            except (OSError, ValueError):
                return False
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
        """``MEMORY_LIMIT`` or ``TIMEOUT`` when a dead bot's end looks like one of its limits (``deaths``)."""
        return deaths.limit_hit(self, stderr, cpu_limit_s)

    def killed_from_outside(self) -> str | None:
        """Why the bot's death was not its own doing, or None (``workers.sandbox.deaths``)."""
        return deaths.killed_from_outside(self)

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

    def _bwraps(self) -> set[int]:
        """bubblewrap's own processes, told by the kernel's family tree (our child and its), never by name."""
        self.note_inner()
        return {self.popen.pid, *self.inner} if self.sandboxed else set()

    def holds_pipe(self, fd: int) -> bool:
        """Whether any process of the bot itself (not bwrap's) still has the pipe of ``fd`` open.

        bubblewrap's own processes are told by the kernel's family tree (our child and its
        children), never by a name: a bot may call itself anything, ``bwrap`` included.
        """
        target = f"pipe:[{os.fstat(fd).st_ino}]"
        own = self._bwraps()
        for pid in self._pids():
            if pid in own:
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

    def _pids(self) -> list[int]:
        if self.group is not None and not self.gone:
            try:
                return self.group.procs()
            except OSError:
                return []
        return process_tree(self.popen.pid)

    def set_nice(self, value: int) -> None:
        """Renice every process of the bot's slot uid (the off-move yield without a control group)."""
        if self.slot is not None:
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_USER, self.slot.uid, value)

    def set_on_move(self, on_move: bool) -> None:
        """Give the bot the CPU (on move) or only what is left over (off move), all its processes at once."""
        if self.group is not None:
            if not self.gone:
                with contextlib.suppress(OSError):
                    self.group.set_on_move(on_move)
        else:
            self.set_nice(0 if on_move else 19)

    def wait(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for the top process to exit (woken at once by its pidfd)."""
        code = self.poll()
        if code is not None or timeout <= 0:
            return code
        try:
            fd = os.pidfd_open(self.popen.pid)
        except OSError:
            fd = None
        if fd is not None:
            try:
                select.select([fd], [], [], timeout)
            finally:
                os.close(fd)
            return self.poll()
        deadline = time.monotonic() + timeout
        pause = 0.0005
        while True:
            code = self.poll()
            if code is not None or time.monotonic() >= deadline:
                return code
            time.sleep(pause)
            pause = min(pause * 2, 0.01)

    def stop(self) -> None:
        """Kill everything the bot started, waiting for nothing (:meth:`kill` then waits until it is gone)."""
        if self.gone or self._stopped:
            return
        self.sample()
        self._stopped = True
        # What the match records: the ending thread goes on folding in what it reaps.
        self.final_usage = dataclasses.replace(self.usage)
        if self.group is not None:
            with contextlib.suppress(OSError):
                self.group.kill()
            return
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.popen.pid, signal.SIGKILL)
        for pid in pids_of_uid(self.slot.uid) if self.slot is not None else []:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def kill(self) -> None:
        """Kill everything the bot started and reap what is ours; :attr:`gone` once the kernel confirms it."""
        if self.gone:
            return
        if not self._stopped:
            self.sample()
        if self.group is not None:
            self.gone = ending.wait_group_gone(self)
            if self.poll() is None:  # never got into its group (a failed start)
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.popen.pid, signal.SIGKILL)
        else:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.popen.pid, signal.SIGKILL)
            if self.slot is not None:
                self.gone = kill_uid(self.slot.uid)
        self.wait(5.0)
        if self.returncode is None:
            log.error("bot process %s did not die after SIGKILL", self.popen.pid)
        elif self.slot is None:
            self.gone = True

    def _clear(self, uid: int) -> bool:
        """True when nothing of the bot is left, so slot ``uid`` may be used again."""
        try:
            if self.group is not None and (self.group.procs() or not self.group.empty()):
                self.group.kill()
                return False
        except OSError:
            return False
        return not uid_busy(uid)

    def end(self) -> None:
        """:meth:`kill` and :meth:`cleanup`: everything of a bot's end after the match (``workers.sandbox.ending``)."""
        try:
            self.kill()
        finally:
            self.cleanup()

    def cleanup(self) -> None:
        """Close the pipes, delete the per-match copy and give the slot back (after :meth:`kill`).

        A slot whose processes the kernel has not confirmed gone is not given back: it stays
        locked until they are (``workers.sandbox.slots.quarantine``).
        """
        if self._stalls is not None:
            self._stalls.close()
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        mounts.release_slot_dir(self.workdir, self.botdir, keep=self.slot is not None)
        if self.slot is not None:
            slot, self.slot = self.slot, None
            if self.gone or self._clear(slot.uid):
                slot.release()
            else:
                quarantine(slot, lambda: self._clear(slot.uid))
