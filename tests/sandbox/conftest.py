"""Fixtures for the sandbox tests: the same as the referee tests' (count-test engine, sandbox, short clocks)."""

from tests.referee.conftest import count_engine, limits, runtime

__all__ = ["count_engine", "limits", "runtime"]
