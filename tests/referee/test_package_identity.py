"""The same bytes uploaded under different names (by two users, or one user twice) all play.

Through the real package checks, the real package cache and the real sandbox:
the cache once kept one copy per checksum, unpacked under the first upload's
filename, so a later identical upload under another name could not start.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from tests.referee.support import FAST, RANDOM_BOT
from workers.match import MatchSpec, SeatStatus
from workers.packages.archive import inspect_package
from workers.packages.cache import PackageCache, cache_key
from workers.referee.play import play_match
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.start import BotProgram


def _program(cache: PackageCache, data: bytes, filename: str, stored_command: tuple[str, ...]) -> BotProgram:
    return cache.program(
        checksum=hashlib.sha256(data).hexdigest(), command=stored_command, fetch=lambda: (data, filename)
    )


def test_same_bytes_under_two_names_both_play(runtime: Path, limits: SandboxLimits) -> None:
    data = RANDOM_BOT.read_bytes()
    cache = PackageCache(runtime / "identity-cache")
    # What the upload stores for each version: the command its package check gave.
    sabotage = inspect_package(data, "sabotage.py").command
    abot = inspect_package(data, "abot.py").command
    assert sabotage == abot == ("python3", "main.py")
    first = _program(cache, data, "sabotage.py", sabotage)  # user B's upload, unpacked first
    second = _program(cache, data, "abot.py", abot)  # user A's identical bytes, another name
    spec = MatchSpec(match_id="", engine_id="count-test", options={"target": 10}, seed=5, seats=2, clock=FAST)
    record = play_match(spec, [first, second], limits=limits)
    assert [s.status for s in record.seat_records] == [SeatStatus.OK, SeatStatus.OK], record
    assert record.moves


def test_cache_keeps_apart_same_bytes_with_other_entry_points(tmp_path: Path) -> None:
    data = RANDOM_BOT.read_bytes()
    cache = PackageCache(tmp_path / "cache")
    legacy = _program(cache, data, "abot.py", ("python3", "abot.py"))
    fixed = _program(cache, data, "abot.py", ("python3", "main.py"))
    assert legacy.directory != fixed.directory
    assert fixed.directory.name == cache_key(legacy.directory.name.split("-")[0], ("python3", "main.py"))
    assert (fixed.directory / "main.py").read_bytes() == data
