"""Which bots this worker can run: the program a bot's command starts must be in the sandbox's /usr.

A package's command either starts a program of its own (``./bot``: compiled,
needs only the C library) or names a runtime found on the sandbox's ``PATH``
(``python3``, ``node``...).  A worker that lacks a match's runtime leaves the
match to a worker that has it, rather than play it as a crash.
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import Iterable, Sequence

from workers.sandbox.launcher import BOT_ENV

# The runtimes the starters of `arbiter new` use, reported by /healthz and the worker's start-up log.
REPORTED = ("python3", "node", "gcc")


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
