"""Keeping a worker's package cache bounded: least recently used packages go first.

A cached package's folder modification time is its last use (``package_touch`` on every
hit); ``package_cache_trim`` removes the oldest until the cache fits its size.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import time
from pathlib import Path

# Staging folders (``.<name>.<random>``) older than this were left by a killed worker.
STALE_STAGING_S = 3600
# Packages used this recently are never evicted.
RECENT_S = 60.0


def package_touch(path: Path) -> None:
    """Mark a cached package as used now: eviction goes by the folder's modification time."""
    with contextlib.suppress(OSError):
        os.utime(path)


def _tree_bytes(path: Path) -> int:
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(folder, name)).st_size
    return total


def package_cache_trim(*, root: Path, max_bytes: int, recent_s: float = RECENT_S) -> list[Path]:
    """Bring the package cache under ``max_bytes``, least recently used packages first; the removed folders.

    Packages used in the last ``recent_s`` seconds stay (a match about to start may be copying
    them into its sandbox), so the bound can be passed for that long.  Staging folders left
    behind by a killed worker go once stale.  Each match plays from a copy of its own, and a
    package gone from the cache is simply unpacked again when next needed.
    """
    now = time.time()
    packages: list[tuple[float, int, Path]] = []
    removed: list[Path] = []
    try:
        children = list(Path(root).iterdir())
    except OSError:
        return removed
    for child in children:
        try:
            info = child.lstat()
        except OSError:
            continue
        if child.name.startswith("."):
            if now - info.st_mtime > STALE_STAGING_S:
                shutil.rmtree(child, ignore_errors=True)
                removed.append(child)
            continue
        if stat.S_ISDIR(info.st_mode):
            packages.append((info.st_mtime, _tree_bytes(child), child))
    total = sum(size for _, size, _ in packages)
    for mtime, size, path in sorted(packages, key=lambda p: p[0]):
        if total <= max_bytes:
            break
        if now - mtime < recent_s:
            break  # sorted by use: everything after this was used as recently
        # Renamed first, so no other worker finds a half-removed package under its checksum.
        doomed = path.with_name(f".evicted.{path.name}.{os.getpid()}")
        try:
            os.rename(path, doomed)
        except OSError:
            continue
        shutil.rmtree(doomed, ignore_errors=True)
        removed.append(path)
        total -= size
    return removed
