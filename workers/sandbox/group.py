"""The control group of one sandbox slot: the kernel's account of everything one bot runs.

A :class:`SlotGroup` is made the first time its slot is used and kept for the
next bots of that slot; ``prepare`` checks it is empty, resets what can be
reset and writes the limits.  The referee reads its counters through file
descriptors kept open (one ``pread`` each), switches its CPU weight when the
bot goes on or off move, and kills it as a whole.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

from workers.sandbox.cgroups import (
    CgroupError,
    CgroupSupport,
    GroupBusyError,
    current_group,
    group_name,
    read_text,
    write_text,
)
from workers.sandbox.ending import wait_exits

# CPU weight of a bot on move and off move where cpu.idle is missing (v1 shares, v2 weight).
_WEIGHTS = {1: ("cpu.shares", "1024", "2"), 2: ("cpu.weight", "100", "1")}
# Leftover page cache from earlier bots of the slot above this is reclaimed before a new bot.
_RECLAIM_ABOVE = 4 << 20


class SlotGroup:
    """One slot's control group in every hierarchy in use (see ``workers.sandbox.cgroups``)."""

    def __init__(self, support: CgroupSupport, uid: int) -> None:
        self.support = support
        self.version = support.version
        name = group_name(uid)
        if self.version == 1:
            self.dirs = {c: base / name for c, base in support.bases.items()}
        else:
            self.dirs = {c: support.bases[""] / name for c in ("memory", "pids", "cpu", "cpuacct", "cpuset")}
        self._fds: dict[str, int] = {}
        self._written: dict[str, str] = {}
        self._cpu_base = 0
        self._oom_base = 0
        self._limit_base = 0
        self._limit_bytes = 0
        self._peak_seen = 0
        self.on_move: bool | None = None
        self._has_idle: bool | None = None  # cpu.idle exists (asked once: it is asked twice a move)
        # Read afresh each look (see threads()): its path as a string, joined once.
        self._threads_path = str(self.dirs["pids"] / ("tasks" if self.version == 1 else "cgroup.threads"))

    # -- files ---------------------------------------------------------------------------

    def _path(self, controller: str, name: str) -> Path:
        return self.dirs[controller] / name

    def _fd(self, controller: str, name: str, flags: int = os.O_RDONLY) -> int:
        key = f"{controller}/{name}/{flags}"
        fd = self._fds.get(key)
        if fd is None:
            try:
                fd = os.open(self._path(controller, name), flags | os.O_CLOEXEC)
            except OSError as exc:
                raise CgroupError(exc.errno, f"cannot open {self._path(controller, name)}: {exc.strerror}") from None
            self._fds[key] = fd
        return fd

    def _read(self, controller: str, name: str) -> str:
        try:
            return os.pread(self._fd(controller, name), 65536, 0).decode()
        except OSError as exc:
            if exc.errno != errno.ENODEV:
                raise
            # The group was removed (and maybe made again) by another process since we opened
            # its files: the open file belongs to the old group.  Open the current one.
            self.close()
            return os.pread(self._fd(controller, name), 65536, 0).decode()

    def _write(self, controller: str, name: str, value: str, *, cache: bool = False) -> None:
        """Write a control file; with ``cache`` skip it when the last write was the same value."""
        key = f"{controller}/{name}"
        if cache and self._written.get(key) == value:
            return
        try:
            try:
                os.write(self._fd(controller, name, os.O_WRONLY), value.encode())
            except OSError as exc:
                if exc.errno != errno.ENODEV:
                    raise
                self.close()  # a stale file of a removed group: see _read
                os.write(self._fd(controller, name, os.O_WRONLY), value.encode())
        except OSError as exc:
            raise CgroupError(exc.errno, f"cannot write {value!r} to {self._path(controller, name)}") from None
        self._written[key] = value

    def _field(self, controller: str, name: str, key: str) -> int:
        for line in self._read(controller, name).splitlines():
            k, _, v = line.partition(" ")
            if k == key:
                return int(v)
        return 0

    # -- life ----------------------------------------------------------------------------

    def prepare(self, memory_bytes: int, processes: int) -> None:
        """Make the group if needed, make sure it is empty and set its limits (before a launcher joins).

        Raises CgroupError when the group cannot be made or set, GroupBusyError when it still
        holds processes.
        """
        for controller, directory in self.dirs.items():
            if not directory.is_dir():
                try:
                    directory.mkdir()
                except FileExistsError:
                    pass
                except OSError as exc:
                    raise CgroupError(exc.errno, f"cannot make {directory}: {exc.strerror}") from None
                if controller == "cpuset" and self.version == 1:
                    write_text(directory / "cpuset.mems", read_text(directory.parent / "cpuset.mems").strip())
        # Another worker process may have held the slot since: what we last wrote says nothing.
        # (Had it removed the group, the files we hold open belong to the old one: _read and
        # _write open them again.)
        self._written.clear()
        self.on_move = None
        if not self.empty():
            # A worker that died while holding the slot left these: they are ours (our group).
            self.kill()
            if not self.wait_empty(5.0):
                raise GroupBusyError(0, f"slot group {self.dirs['pids']} still holds processes")
        self._set_limits(memory_bytes, processes)
        self._set_cpus(None)

    def start(self, cpu: int | None) -> None:
        """Just before the bot runs: counters from zero, full CPU weight, the match's CPU (or all)."""
        self._reset_counters()
        self.set_on_move(True)
        self._set_cpus(cpu)

    def _set_cpus(self, cpu: int | None) -> None:
        if self.support.cpuset:
            # An empty cpuset refuses processes: unpinned bots get every CPU of the worker's set.
            cpus = str(cpu) if cpu is not None else read_text(self.dirs["cpuset"].parent / "cpuset.cpus").strip()
            self._write("cpuset", "cpuset.cpus", cpus, cache=True)

    def _set_limits(self, memory_bytes: int, processes: int) -> None:
        self._limit_bytes = memory_bytes
        limit = str(memory_bytes)
        if self.version == 1:
            # memsw (memory + swap) must stay at or above the memory limit: order the writes.
            has_swap = self._path("memory", "memory.memsw.limit_in_bytes").exists()
            if self._written.get("memory/memory.limit_in_bytes") != limit:
                with contextlib.suppress(CgroupError):
                    self._write("memory", "memory.limit_in_bytes", limit)
                if has_swap:
                    self._write("memory", "memory.memsw.limit_in_bytes", limit)
                self._write("memory", "memory.limit_in_bytes", limit)
        else:
            self._write("memory", "memory.max", limit, cache=True)
            with contextlib.suppress(CgroupError):  # no swap accounting: nothing to limit
                self._write("memory", "memory.swap.max", "0", cache=True)
            # One bot, one fate: the OOM killer takes the whole group, not a random process.
            self._write("memory", "memory.oom.group", "1", cache=True)
        self._write("pids", "pids.max", str(processes), cache=True)

    def _reset_counters(self) -> None:
        if self.version == 1:
            if self.memory_now() > _RECLAIM_ABOVE:
                with contextlib.suppress(CgroupError):
                    self._write("memory", "memory.force_empty", "0")
            self._write("memory", "memory.max_usage_in_bytes", "0")
            self._oom_base = self._field("memory", "memory.oom_control", "oom_kill")
        else:
            events = self._read("memory", "memory.events")
            self._oom_base = _value(events, "oom_kill")
            self._limit_base = _value(events, "oom")
        self._peak_seen = self.memory_now()
        self._cpu_base = self._cpu_total()

    def attach(self, pid: int) -> None:
        """Move process ``pid`` (not yet started anything) into the group in every hierarchy."""
        done: set[Path] = set()
        for controller, directory in self.dirs.items():
            if directory in done:
                continue
            done.add(directory)
            self._write(controller, "cgroup.procs", str(pid))

    # -- what the bot uses ------------------------------------------------------------------

    def _cpu_total(self) -> int:
        if self.version == 1:
            return int(self._read("cpuacct", "cpuacct.usage"))
        return self._field("cpu", "cpu.stat", "usage_usec") * 1000

    def cpu_ns(self) -> int:
        """CPU time of every process of the bot since ``prepare``, in nanoseconds."""
        return self._cpu_total() - self._cpu_base

    def memory_now(self) -> int:
        """Bytes the group holds now (process memory, shared memory, tmpfs and kernel objects)."""
        name = "memory.usage_in_bytes" if self.version == 1 else "memory.current"
        return int(self._read("memory", name) or 0)

    def memory_peak(self) -> int:
        """The most bytes the group held since ``prepare`` (v2 without memory.peak: as sampled)."""
        now = self.memory_now()
        self._peak_seen = max(self._peak_seen, now)
        if self.version == 1:
            return max(int(self._read("memory", "memory.max_usage_in_bytes")), now)
        return self._peak_seen

    def oom_killed(self) -> bool:
        """True when the kernel killed a process of the group for memory since ``prepare``."""
        if self.version == 1:
            return self._field("memory", "memory.oom_control", "oom_kill") > self._oom_base
        return self._field("memory", "memory.events", "oom_kill") > self._oom_base

    def reached_limit(self) -> bool:
        """True when the group ran into its own memory limit (not the machine's) since ``prepare``."""
        if self.version == 1:
            # v1's failcnt is not kept by recent kernels: the peak tells (charges come in batches
            # of a few pages per CPU, so the peak may stop a little short of the limit).
            margin = min(8 << 20, self._limit_bytes // 20)
            return self.memory_peak() >= self._limit_bytes - margin
        return self._field("memory", "memory.events", "oom") > self._limit_base

    def set_on_move(self, on_move: bool) -> None:
        """Full CPU weight for a bot on move; the smallest for one that waits (all its processes)."""
        if self.on_move is on_move:
            return
        if self._has_idle is None:
            self._has_idle = self._path("cpu", "cpu.idle").exists()
        if self._has_idle:
            self._write("cpu", "cpu.idle", "0" if on_move else "1")
        else:
            name, full, least = _WEIGHTS[self.version or 1]
            self._write("cpu", name, full if on_move else least)
        self.on_move = on_move

    # -- the end -------------------------------------------------------------------------

    def procs(self) -> list[int]:
        """Processes in the group now."""
        # Opened afresh each time: v1 keeps the list it read for an open file (it would go stale).
        return [int(p) for p in read_text(self._path("pids", "cgroup.procs")).split()]

    def threads(self) -> list[int]:
        """Thread ids of every process in the group now (v1 ``tasks``, v2 ``cgroup.threads``)."""
        # Opened afresh each time, as procs(); read with plain system calls (twice a move).
        try:
            fd = os.open(self._threads_path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return []
        try:
            chunks = []
            while chunk := os.read(fd, 65536):
                chunks.append(chunk)
        except OSError:
            return []
        finally:
            os.close(fd)
        return [int(t) for t in b"".join(chunks).split()]

    def task_count(self) -> int:
        """Tasks (threads, zombies not yet reaped included) in the group now: one ``pread`` of ``pids.current``."""
        return int(self._read("pids", "pids.current") or 0)

    def empty(self) -> bool:
        """True once the kernel has let go of every process of the group (zombies included)."""
        return self.task_count() == 0

    def kill(self) -> list[int]:
        """SIGKILL every process in the group; returns the pids signalled."""
        if self.version == 2 and self._path("pids", "cgroup.kill").exists():
            pids = self.procs()
            self._write("pids", "cgroup.kill", "1")
            return pids
        pids = self.procs()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return pids

    def wait_empty(
        self,
        timeout: float,
        each_round: Callable[[list[int]], None] | None = None,
        watch: Callable[[], list[int]] | None = None,
    ) -> bool:
        """Kill until the group is empty or ``timeout`` passes; True once the kernel confirms it empty.

        ``each_round`` gets the pids just killed: dead processes that are the caller's children
        (its bot's first process; a sandbox's init whose parent died first, since the worker is
        a subreaper) stay in the group until the caller reaps them.  Between rounds it waits for
        the kernel to say a process exited (``workers.sandbox.ending.wait_exits``): those of the
        group still alive, and ``watch()``, the caller's children not reaped yet (a zombie is no
        longer listed in the group, but still counts in it).
        """
        deadline = time.monotonic() + timeout
        while True:
            killed = self.kill() if self.procs() else []
            if each_round is not None:
                each_round(killed)
            if self.empty():
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            # At most a second at a time: a pid read from the group may be reused once reaped.
            wait_exits([*self.procs(), *(watch() if watch is not None else [])], min(left, 1.0))

    def close(self) -> None:
        """Close the control files kept open."""
        for fd in self._fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds.clear()
        self._written.clear()
        self.on_move = None

    def remove(self) -> None:
        """Remove the (empty) group from every hierarchy."""
        self.close()
        for directory in set(self.dirs.values()):
            with contextlib.suppress(OSError):
                directory.rmdir()


def _value(text: str, key: str) -> int:
    for line in text.splitlines():
        k, _, v = line.partition(" ")
        if k == key:
            return int(v)
    return 0


def prime_migration(support: CgroupSupport) -> None:
    """Start, in the background, what makes the next move of a process into a group quick.

    Moving a process between groups first waits for an RCU grace period (milliseconds,
    more on a busy machine) unless another move happened just before.  A start calls this
    first and does its other work meanwhile; the bot's own move then finds the way clear.
    The move made here is of this thread into the group it is already in: nothing changes.
    """
    threading.Thread(target=_move_self_in_place, args=(support.version,), daemon=True).start()


def _move_self_in_place(version: int | None) -> None:
    directory = current_group("pids" if version == 1 else "")
    if directory is None:
        return
    # v1 moves single threads ("tasks"); v2 whole processes.
    target, who = (directory / "tasks", threading.get_native_id()) if version == 1 else (
        directory / "cgroup.procs", os.getpid())  # fmt: skip
    with contextlib.suppress(OSError):
        write_text(target, str(who))


_groups: dict[tuple[int, int], SlotGroup] = {}


def slot_group(support: CgroupSupport, uid: int) -> SlotGroup:
    """The (cached) group of slot ``uid``: only the holder of the slot's lock may use it."""
    key = (support.version or 0, uid)
    group = _groups.get(key)
    if group is None or group.support is not support:
        group = _groups[key] = SlotGroup(support, uid)
    return group


def remove_idle_groups(support: CgroupSupport, uids: range, is_free: Callable[[int], bool]) -> int:
    """Remove the groups of slots in ``uids`` that ``is_free(uid)`` (a callable) says nobody holds.

    For a worker's exit and the end of a test session; returns how many were removed.
    """
    removed = 0
    for uid in uids:
        group = slot_group(support, uid)
        if not group.dirs["pids"].is_dir() or not is_free(uid):
            continue
        if group.empty():
            group.remove()
            _groups.pop((support.version or 0, uid), None)
            removed += 1
    return removed
