"""A worker's cache of unpacked packages, one directory per package content and entry point.

Matches unpack each bot here once per worker machine; ``workers.packages.trim``
keeps the cache under its size, least recently used first.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path

from workers.packages.archive import PackageError, unpack_package
from workers.packages.trim import package_cache_trim, package_touch
from workers.sandbox.start import BotProgram


class PackageUnavailableError(Exception):
    """A bot's package is missing or cannot be unpacked: the match cannot be played."""


def cache_key(checksum: str, command: Sequence[str]) -> str:
    """The cache directory's name for a package: its content plus how it is started.

    The checksum alone is not enough: two versions with the same bytes but a
    different entry point must never share (and break) one unpacked copy.
    """
    entry = hashlib.sha256(json.dumps(list(command)).encode()).hexdigest()[:16]
    return f"{checksum}-{entry}"


class PackageCache:
    """Unpacked packages on a worker's disk, one directory per package content and entry point.

    ``program`` returns the unpacked bot, unpacking it first if needed from the
    bytes ``fetch`` returns (called only on a miss).  Worker processes share
    the directory: an unpack is staged and renamed into place, so two workers
    unpacking the same package at once both end up with the one copy.
    """

    def __init__(self, root: Path, max_bytes: int | None = None) -> None:
        """``max_bytes``: the size the cache is trimmed back under after each unpack (None: unbounded)."""
        self.root = Path(root)
        self.max_bytes = max_bytes

    def program(self, *, checksum: str, command: Sequence[str], fetch: Callable[[], tuple[bytes, str]]) -> BotProgram:
        """The unpacked bot for ``checksum`` started by ``command``; ``fetch`` gives (bytes, filename) on a miss.

        Raises PackageUnavailableError when the bytes do not match the checksum
        or the package is invalid; OSError for a problem of this machine.
        """
        dest = self.root / cache_key(checksum, command)
        if dest.is_dir() and command:
            package_touch(dest)
            return BotProgram(directory=dest, command=tuple(command))
        data, filename = fetch()
        if hashlib.sha256(data).hexdigest() != checksum:
            raise PackageUnavailableError(f"package {filename!r} does not match its checksum")
        self.root.mkdir(parents=True, exist_ok=True)
        try:
            program = unpack_package(data, filename, dest)
            if self.max_bytes is not None:
                package_cache_trim(root=self.root, max_bytes=self.max_bytes)
            return program
        except PackageError as exc:
            raise PackageUnavailableError(f"package {filename!r} is invalid: {exc}") from exc
        except FileExistsError:
            # Another worker process unpacked the same package at the same moment: use its copy.
            if dest.is_dir() and command:
                return BotProgram(directory=dest, command=tuple(command))
            raise
