"""Which CPU a match's bots run on: matches spread evenly over the worker's CPUs.

The bots of one match share one CPU, so a bot that computes while it is not
on move competes only with its own opponent (where its tiny CPU weight leaves
the opponent nearly all of it), and concurrent matches of the worker do not
meet at all while there are no more matches than CPUs.  With more, no CPU
carries more than ``ceil(matches / CPUs)`` of them.

The choice is made with lock files next to the slot locks, so every worker
process of the machine takes part: a match holds ``cpu-<c>.<k>.lock`` and
level ``k`` of a CPU is only used once level ``k`` of every CPU is taken.
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class CpuLease:
    """A CPU held for one match; ``release`` gives it back."""

    cpu: int
    _fd: int | None = field(default=None, repr=False)

    def release(self) -> None:
        """Unlock (idempotent)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)


def worker_cpus() -> list[int]:
    """The CPUs this worker process may run on (its affinity, which a container's cpuset sets)."""
    return sorted(os.sched_getaffinity(0))


def lease_cpu(lock_dir: Path, cpus: list[int] | None = None) -> CpuLease:
    """Hold the least used CPU of ``cpus`` (default: the worker's) for one match."""
    cpus = cpus or worker_cpus()
    start = os.getpid() % len(cpus)
    ordered = cpus[start:] + cpus[:start]
    level = 0
    while True:
        for cpu in ordered:
            fd = os.open(lock_dir / f"cpu-{cpu}.{level}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return CpuLease(cpu=cpu, _fd=fd)
        level += 1
