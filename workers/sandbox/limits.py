"""Per-bot limits of the sandbox, every one a setting (``ARBITER_SANDBOX_*``, docs/configuration.md)."""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workers import config

# Each field's variable; its default is the registered one (workers/config.py), so there is one.
VARIABLES = {
    "memory_mb": "ARBITER_SANDBOX_MEMORY_MB",
    "processes": "ARBITER_SANDBOX_PROCESSES",
    "runtime_address_space_mb": "ARBITER_SANDBOX_RUNTIME_ADDRESS_SPACE_MB",
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
    "cgroups": "ARBITER_SANDBOX_CGROUPS",
    "pin_cpu": "ARBITER_SANDBOX_PIN_CPU",
    "tmp_inodes": "ARBITER_SANDBOX_TMP_INODES",
    "shared_memory": "ARBITER_SANDBOX_SHARED_MEMORY",
    "warm": "ARBITER_SANDBOX_WARM",
    "wall_factor": "ARBITER_SANDBOX_WALL_FACTOR",
    "wall_grace_ms": "ARBITER_SANDBOX_WALL_GRACE_MS",
    "stopped_s": "ARBITER_SANDBOX_STOPPED_S",
}
DEFAULT_LOCK_DIR = "/run/arbiter/slots"


def _default(field: str) -> Any:
    return config.SETTINGS[VARIABLES[field]].default


@dataclass(frozen=True)
class SandboxLimits:
    """Per-bot limits (see docs/configuration.md for each)."""

    memory_mb: int = _default("memory_mb")  # address space (RLIMIT_AS) of each process
    processes: int = _default("processes")  # processes and threads of the slot uid (RLIMIT_NPROC)
    runtime_address_space_mb: int = _default("runtime_address_space_mb")  # RLIMIT_AS of java and of Go's programs
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
    lock_dir: str = _default("lock_dir")  # "" is /run/arbiter/slots
    seccomp: bool = _default("seccomp")
    allow_unsandboxed: bool = _default("allow_unsandboxed")
    cgroups: str = _default("cgroups")  # auto, v1, v2 or off
    pin_cpu: bool = _default("pin_cpu")  # the bots of a match share one CPU
    tmp_inodes: int = _default("tmp_inodes")  # inodes of /tmp and of /dev/shm (where the worker may mount)
    shared_memory: bool = _default("shared_memory")  # SysV IPC and memfd_create allowed
    warm: int = _default("warm")  # launchers started ahead per worker process, for one CPU limit (each holds a slot)
    wall_factor: float = _default("wall_factor")  # wall-clock backstop: this times the CPU budget...
    wall_grace_ms: int = _default("wall_grace_ms")  # ...plus this
    stopped_s: float = _default("stopped_s")  # a bot stopped from outside this long: the match is given up
    # Not a setting: a server-side build's processes may reserve more address space than the
    # control group lets them use (None: memory_mb, the bots' rule).
    address_space_mb: int | None = None
    # Not a setting: what a writable /bot (a server-side build's) may hold beyond its copy, where
    # the worker mounts each bot's view (workers.sandbox.view); a bot's /bot is read-only.
    bot_room_mb: int = 0
    # Not a setting: files and folders such a writable /bot may hold beyond its copy.
    bot_files: int = 0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> SandboxLimits:
        """The limits the environment sets (``config.ConfigError`` naming a malformed variable)."""
        return cls(**{name: config.read(variable, environ) for name, variable in VARIABLES.items()})

    def cpu_limit(self, startup_ms: int, game_ms: int) -> int:
        """RLIMIT_CPU seconds for one bot of a match with this clock."""
        if self.cpu_seconds is not None:
            return self.cpu_seconds
        return math.ceil((startup_ms + game_ms) / 1000) + 2

    def wall_limit_ms(self, budget_ms: int) -> int:
        """The real time a bot may take for a CPU budget of ``budget_ms`` (sleeping, blocked)."""
        return int(budget_ms * self.wall_factor) + self.wall_grace_ms

    def match_wall_limit_s(self, startup_ms: int, game_ms: int, seats: int) -> float:
        """Most real time a match can take with the bots at fault for none of it (start-up is shared).

        One stop of a bot from outside, up to its bound, is allowed for.  Time the referee itself
        was stopped, and time bots waited for a CPU, is charged to nobody and comes on top.
        """
        return (self.wall_limit_ms(startup_ms) + seats * self.wall_limit_ms(game_ms)) / 1000 + self.stopped_s

    def lock_path(self) -> Path:
        """Where the slot locks live: one place for the whole machine."""
        return Path(self.lock_dir or DEFAULT_LOCK_DIR)

    def runtime_path(self) -> Path:
        """Where per-match copies of the bots are made."""
        if self.runtime_dir:
            return Path(self.runtime_dir)
        return Path(tempfile.gettempdir()) / f"arbiter-sandbox-{os.geteuid()}"
