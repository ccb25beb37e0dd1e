"""Host-wide counters in /proc, replaced inside the sandbox by files that never change.

A fresh ``/proc`` shows only the bot's own processes, but some of its files
are about the whole machine: free memory, shared memory, load, CPU and
interrupt counts, open files, pressure.  Any of them that one bot can move
and another can read is a channel between two bots of one match (a byte was
passed through ``/proc/meminfo`` in a few seconds).  Each such file is covered
with a read-only bind of a static file written once per worker: ``meminfo``
describes the bot's own memory limit, ``stat`` its CPUs, the rest are empty or
a snapshot taken at worker start.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

# Files whose contents are synthesised (the rest of the masked files are empty).
_MEMINFO_KEYS = (
    "MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached", "SwapCached", "Active", "Inactive",
    "SwapTotal", "SwapFree", "Dirty", "Writeback", "AnonPages", "Mapped", "Shmem", "Slab", "SReclaimable",
    "SUnreclaim", "KernelStack", "PageTables", "CommitLimit", "Committed_AS", "VmallocTotal", "VmallocUsed",
    "HugePages_Total", "HugePages_Free", "Hugepagesize",
)  # fmt: skip
# Counters of the whole machine (or the whole file system cache) that a bot could move or read.
# (Files only root may read, such as slabinfo, need no cover: a bot is never root.)
_EMPTY = (
    "vmstat", "zoneinfo", "buddyinfo", "diskstats", "interrupts", "softirqs", "schedstat", "locks",
    "sys/fs/file-nr", "sys/fs/inode-nr", "sys/fs/inode-state", "sys/fs/dentry-state", "sys/fs/aio-nr",
    "sys/kernel/pty/nr",
)  # fmt: skip
_EMPTY_DIRS = ("pressure",)
_SNAPSHOT = ("cpuinfo",)  # static facts with a moving part (the clock rate under load)


def _meminfo(memory_mb: int) -> str:
    total = memory_mb * 1024
    values = dict.fromkeys(_MEMINFO_KEYS, 0)
    values.update(MemTotal=total, MemFree=total, MemAvailable=total, CommitLimit=total, Hugepagesize=2048)
    values["VmallocTotal"] = 34359738367
    lines = []
    for key, value in values.items():
        unit = "" if key.startswith("HugePages_") else " kB"
        lines.append(f"{key + ':':<16}{value:>8}{unit}")
    return "\n".join(lines) + "\n"


def _stat(cpus: int, boot_time: int) -> str:
    zeros = " ".join(["0"] * 10)
    lines = [f"cpu  {zeros}", *(f"cpu{i} {zeros}" for i in range(cpus))]
    lines += ["intr 0", "ctxt 0", f"btime {boot_time}", "processes 1", "procs_running 1", "procs_blocked 0"]
    lines.append("softirq " + " ".join(["0"] * 11))
    return "\n".join(lines) + "\n"


def _boot_time() -> int:
    for line in Path("/proc/stat").read_text().splitlines():
        if line.startswith("btime "):
            return int(line.split()[1])
    return int(time.time())


def _write(path: Path, text: str) -> None:
    """Write ``text`` unless the file already holds it (several workers share the directory)."""
    try:
        if path.read_text() == text:
            return
    except OSError:
        pass
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(text)
    tmp.chmod(0o444)
    os.replace(tmp, path)


def static_files(memory_mb: int, cpus: int, proc: Path = Path("/proc")) -> dict[str, str]:
    """The static files' texts by their path under /proc: only for files this kernel has that a bot may read.

    (bwrap cannot bind onto a missing file, and files only root may read need no cover.)
    """
    files = {
        "meminfo": _meminfo(memory_mb),
        "stat": _stat(cpus, _boot_time()),
        "loadavg": "0.00 0.00 0.00 1/1 1\n",
        "uptime": f"{time.clock_gettime(time.CLOCK_BOOTTIME):.2f} 0.00\n",
    }
    for name in _SNAPSHOT:
        try:
            files[name] = (proc / name).read_text()
        except OSError:
            continue
    for name in _EMPTY:
        files[name] = ""
    readable = {}
    for name, text in files.items():
        try:
            if (proc / name).stat().st_mode & 0o004:
                readable[name] = text
        except OSError:
            continue  # not in this kernel
    return readable


def covered_dirs(proc: Path = Path("/proc")) -> list[str]:
    """The directories under /proc (of this kernel) that a bot sees empty."""
    return [name for name in _EMPTY_DIRS if (proc / name).is_dir()]


def prepare(directory: Path, memory_mb: int, cpus: int, proc: Path = Path("/proc")) -> list[str]:
    """Write the static files into ``directory``; return the bwrap options that cover /proc with them.

    For a worker that may not mount: elsewhere each bot's files are in its own view
    (``workers.sandbox.view``).
    """
    directory.mkdir(mode=0o755, exist_ok=True)
    directory.chmod(0o755)
    options: list[str] = []
    for name, text in static_files(memory_mb, cpus, proc).items():
        source = directory / name.replace("/", "_")
        _write(source, text)
        options += ["--ro-bind", str(source), f"/proc/{name}"]
    empty_dir = directory / "empty"
    empty_dir.mkdir(mode=0o755, exist_ok=True)
    for name in covered_dirs(proc):
        options += ["--ro-bind", str(empty_dir), f"/proc/{name}"]
    return options
