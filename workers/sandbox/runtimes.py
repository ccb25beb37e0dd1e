"""Which bots this worker can run: the program a bot's command starts must be in the sandbox's /usr.

A package's command either starts a program of its own (``./bot``: compiled,
needs only the C library) or names a runtime found on the sandbox's ``PATH``
(``python3``, ``node``...).  A worker that lacks a match's runtime leaves the
match to a worker that has it, rather than play it as a crash.
"""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath

from workers.sandbox.launcher import BOT_ENV, BotProgram
from workers.sandbox.limits import SandboxLimits

# The runtimes the starters of `arbiter new` use, reported by /healthz and the worker's start-up log.
REPORTED = ("python3", "node", "gcc", "g++", "rustc", "go", "java", "javac")
# Every program Go links carries its build information after this marker (the `go version` tool reads it).
_GO_MARKER = b"\xff Go buildinf:"
_SCAN_CHUNK = 1 << 20


def runtimes_report() -> dict[str, bool]:
    """Which of the usual runtimes this worker gives bots."""
    return {name: runtime_available(name) for name in REPORTED}


def runtime_of(command: Sequence[str]) -> str | None:
    """The runtime a command needs from the machine, or None for a program in the package itself."""
    head = command[0] if command else ""
    return head if head and "/" not in head else None


@functools.cache
def runtime_available(name: str) -> bool:
    """True when ``name`` is on the bots' PATH here (only /usr is shown to bots, and /usr is the host's)."""
    return shutil.which(name, path=BOT_ENV["PATH"]) is not None


def runtimes_missing(commands: Iterable[Sequence[str]]) -> set[str]:
    """The runtimes these commands need that this worker does not have."""
    needed = {runtime_of(c) for c in commands}
    return {name for name in needed if name is not None and not runtime_available(name)}


def program_limits(program: BotProgram, limits: SandboxLimits) -> SandboxLimits:
    """The limits ``program`` runs under: the bots' own, but for a runtime with a known quirk.

    The JVM and Go's runtime reserve far more address space than they use, whatever the
    program does (the JVM its class space, code cache and threads' malloc arenas; Go about
    700 MiB for its page allocator's index), and die at start under a bot's RLIMIT_AS.  A bot
    run by ``java``, or a program Go compiled, gets ``runtime_address_space_mb`` of address
    space; its memory stays held to ``memory_mb`` by the bot's control group, as every bot's is.
    """
    if limits.address_space_mb is not None:  # a build's own rule
        return limits
    if not (program.command[:1] == ("java",) or _runs_go(program)):
        return limits
    return replace(limits, address_space_mb=max(limits.memory_mb, limits.runtime_address_space_mb))


def _runs_go(program: BotProgram) -> bool:
    """True when the command starts a program of the package that Go compiled."""
    head = program.command[0] if program.command else ""
    if "/" not in head or PurePosixPath(head).is_absolute():
        return False
    path = program.directory / PurePosixPath(head)
    try:
        info = os.stat(path)
    except OSError:
        return False
    return _built_by_go(str(path), info.st_size, info.st_mtime_ns)


@functools.lru_cache(maxsize=256)
def _built_by_go(path: str, size: int, mtime_ns: int) -> bool:
    """True when the file at ``path`` is a program Go linked (size and time key the cache)."""
    del size, mtime_ns
    tail = b""
    try:
        with Path(path).open("rb") as program:
            while chunk := program.read(_SCAN_CHUNK):
                if _GO_MARKER in tail + chunk:
                    return True
                tail = chunk[-len(_GO_MARKER) :]
    except OSError:
        return False
    return False
