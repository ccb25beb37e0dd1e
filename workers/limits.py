"""Per-bot limits of the sandbox, every one a setting (``ARBITER_SANDBOX_*``, docs/configuration.md)."""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from workers import config

# Each field's variable; its default is the registered one (workers/config.py), so there is one.
VARIABLES = {
    "memory_mb": "ARBITER_SANDBOX_MEMORY_MB",
    "processes": "ARBITER_SANDBOX_PROCESSES",
    "open_files": "ARBITER_SANDBOX_OPEN_FILES",
    "file_size_mb": "ARBITER_SANDBOX_FILE_SIZE_MB",
    "tmp_mb": "ARBITER_SANDBOX_TMP_MB",
    "shm_mb": "ARBITER_SANDBOX_SHM_MB",
    "cpu_seconds": "ARBITER_SANDBOX_CPU_SECONDS",
    "output_kb": "ARBITER_SANDBOX_OUTPUT_KB",
    "slots": "ARBITER_SANDBOX_SLOTS",
    "first_uid": "ARBITER_SANDBOX_FIRST_UID",
    "runtime_dir": "ARBITER_SANDBOX_DIR",
    "lock_dir": "ARBITER_SANDBOX_LOCK_DIR",
    "seccomp": "ARBITER_SANDBOX_SECCOMP",
    "allow_unsandboxed": "ARBITER_ALLOW_UNSANDBOXED",
}


def _default(field: str) -> Any:
    return config.SETTINGS[VARIABLES[field]].default


@dataclass(frozen=True)
class SandboxLimits:
    """Per-bot limits (see docs/configuration.md for each)."""

    memory_mb: int = _default("memory_mb")  # address space (RLIMIT_AS) of each process
    processes: int = _default("processes")  # processes and threads of the slot uid (RLIMIT_NPROC)
    open_files: int = _default("open_files")
    file_size_mb: int = _default("file_size_mb")  # largest file a bot may write (RLIMIT_FSIZE)
    tmp_mb: int = _default("tmp_mb")  # size of the writable /tmp
    shm_mb: int = _default("shm_mb")  # size of /dev/shm
    cpu_seconds: int | None = _default("cpu_seconds")  # None: startup + game budget + 2 s, from the match clock
    output_kb: int = _default("output_kb")  # all stdout lines of one bot in one match
    slots: int = _default("slots")  # how many bots may run at once on this machine
    first_uid: int = _default("first_uid")
    runtime_dir: str = _default("runtime_dir")  # per-match copies of the bots; "" picks one under the temp dir
    # Slot locks: one place for the whole machine, whatever runtime_dir each worker uses.
    lock_dir: str = _default("lock_dir")  # "" is arbiter-slots under the temp dir
    seccomp: bool = _default("seccomp")
    allow_unsandboxed: bool = _default("allow_unsandboxed")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> SandboxLimits:
        """The limits the environment sets (``config.ConfigError`` naming a malformed variable)."""
        return cls(**{f.name: config.read(VARIABLES[f.name], environ) for f in fields(cls)})

    def cpu_limit(self, startup_ms: int, game_ms: int) -> int:
        """RLIMIT_CPU seconds for one bot of a match with this clock."""
        if self.cpu_seconds is not None:
            return self.cpu_seconds
        return math.ceil((startup_ms + game_ms) / 1000) + 2

    def lock_path(self) -> Path:
        """Where the slot locks live: one place for the whole machine."""
        return Path(self.lock_dir) if self.lock_dir else Path(tempfile.gettempdir()) / "arbiter-slots"

    def runtime_path(self) -> Path:
        """Where per-match copies of the bots are made."""
        if self.runtime_dir:
            return Path(self.runtime_dir)
        return Path(tempfile.gettempdir()) / f"arbiter-sandbox-{os.geteuid()}"
