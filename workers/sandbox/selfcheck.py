"""A worker's checks of itself before it takes a match: temp space, the package cache, the sandbox.

A worker whose temp dir is full, whose package cache cannot be written or
whose sandbox cannot start fails every match it takes within a fraction of a
second, and would use up the attempts of every queued match in a minute.
Each check here is a few system calls (the sandbox self-test, a process
start, is remembered once it passed); the caller runs them before claiming
and stops taking matches while any fails.  No Django here.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from workers.sandbox import start
from workers.sandbox.limits import SandboxLimits

PROBE_BYTES = 64 * 1024  # a write this big must succeed where bots are copied


def _space_problem(directory: Path, min_free_mb: int) -> str | None:
    """Why ``directory`` cannot take a match's files (too little free space, not writable), or None."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        info = os.statvfs(directory)
        free_mb = info.f_bavail * info.f_frsize >> 20
        if free_mb < min_free_mb:
            return f"temp space: {directory} has {free_mb} MiB free (needs {min_free_mb})"
        with tempfile.TemporaryFile(dir=directory) as probe:
            probe.write(b"\0" * PROBE_BYTES)
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as exc:
        return f"temp space: {directory}: {exc.strerror or exc}"
    return None


def _cache_problem(cache: Path) -> str | None:
    """Why the package cache cannot be written, or None."""
    try:
        cache.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=cache, prefix=".selfcheck-")
        try:
            os.write(fd, b"ok")
        finally:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(name)
    except OSError as exc:
        return f"package cache: {cache}: {exc.strerror or exc}"
    return None


def _sandbox_problem(limits: SandboxLimits) -> str | None:
    """Why no bot can be started here (the sandbox self-test failed), or None."""
    try:
        start.sandbox_available(limits)
    except start.SandboxUnavailableError as exc:
        return f"sandbox: {exc}"
    except start.InfrastructureError:
        return None  # every slot busy: says nothing about this worker
    except OSError as exc:
        return f"sandbox: {exc}"
    return None


def worker_problems(*, limits: SandboxLimits, package_cache: Path, min_free_mb: int) -> list[str]:
    """Everything that keeps this worker from playing a match; empty when it is fit."""
    problems = []
    for directory in dict.fromkeys([Path(tempfile.gettempdir()), limits.runtime_path()]):
        problems.append(_space_problem(directory, min_free_mb))
    problems.append(_cache_problem(package_cache))
    if not any(problems):  # the self-test needs the temp space the checks above looked at
        problems.append(_sandbox_problem(limits))
    return [p for p in problems if p]
