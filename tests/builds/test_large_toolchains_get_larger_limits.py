"""rustc, cargo, javac and go take more time and memory than gcc for the same program: their builds
get the ARBITER_BUILD_LARGE_* limits, every other build the usual ones."""

from __future__ import annotations

import pytest

from workers.packages.build import BuildLimits


def test_large_toolchains_get_the_large_limits_and_others_the_usual(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable, value in (
        ("SECONDS", "11"),
        ("MEMORY_MB", "222"),
        ("LARGE_SECONDS", "33"),
        ("LARGE_MEMORY_MB", "444"),
    ):
        monkeypatch.setenv(f"ARBITER_BUILD_{variable}", value)
    for program in ("rustc", "cargo", "javac", "go"):
        assert (BuildLimits.from_env(program).seconds, BuildLimits.from_env(program).memory_mb) == (33, 444)
    for program in ("gcc", "g++", "make", None):
        assert (BuildLimits.from_env(program).seconds, BuildLimits.from_env(program).memory_mb) == (11, 222)
