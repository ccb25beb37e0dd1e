"""The worker's package cache stays under its size: least recently used packages go first."""

from __future__ import annotations

import hashlib
import io
import os
import random
import time
import zipfile
from pathlib import Path

from workers.packages.cache import PackageCache
from workers.packages.trim import package_cache_trim

MAIN = b"print('hi')\n"


def _package(n: int) -> tuple[bytes, str]:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("main.py", MAIN)
        archive.writestr("data.bin", random.Random(n).randbytes(300 * 1024))
    return buffer.getvalue(), f"p{n}.zip"


def _use(cache: PackageCache, n: int) -> Path:
    data, filename = _package(n)
    checksum = hashlib.sha256(data).hexdigest()
    program = cache.program(checksum=checksum, command=("python3", "main.py"), fetch=lambda: (data, filename))
    return program.directory


def _age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_least_recently_used_packages_are_evicted(tmp_path: Path) -> None:
    cache = PackageCache(tmp_path, max_bytes=10 * 1024 * 1024)
    dirs = [_use(cache, n) for n in range(4)]
    for age, path in zip((400, 300, 200, 100), dirs, strict=True):
        _age(path, age)
    # A hit counts as a use: package 0, the oldest, becomes the newest.
    assert _use(cache, 0) == dirs[0]
    removed = package_cache_trim(root=tmp_path, max_bytes=700 * 1024)
    assert removed == [dirs[1], dirs[2]]  # the two used longest ago go; 0 (just used) and 3 stay
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([dirs[0].name, dirs[3].name])


def test_each_unpack_trims_the_cache_under_its_bound(tmp_path: Path) -> None:
    cache = PackageCache(tmp_path, max_bytes=1024 * 1024)
    for n in range(6):
        for path in tmp_path.iterdir():
            _age(path, 120)  # everything earlier was used long enough ago to go
        _use(cache, n)
    total = sum(f.stat().st_size for f in tmp_path.rglob("*") if f.is_file())
    assert total <= 1024 * 1024 and len(list(tmp_path.iterdir())) == 3


def test_recently_used_packages_stay_and_stale_staging_is_cleaned(tmp_path: Path) -> None:
    cache = PackageCache(tmp_path)
    dirs = [_use(cache, n) for n in range(3)]
    stale, fresh = tmp_path / ".abc.stale", tmp_path / ".abc.fresh"
    stale.mkdir()
    fresh.mkdir()
    _age(stale, 2 * 3600)
    removed = package_cache_trim(root=tmp_path, max_bytes=0)
    assert removed == [stale]  # every package was used within the last minute: none goes yet
    assert all(p.is_dir() for p in dirs) and fresh.is_dir()
