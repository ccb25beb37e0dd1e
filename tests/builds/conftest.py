"""Builds run in the real sandbox, in a uid range of their own (apart from the referee's and the kit's)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.referee.conftest import sandbox_runtime
from tests.referee.support import make_limits, require_sandbox
from workers.sandbox.limits import SandboxLimits

FIRST_UID = 61800  # apart from the referee (61200+), kit (61700+) and slot-lock (61900+) tests


@pytest.fixture(scope="session")
def build_runtime() -> Iterator[Path]:
    yield from sandbox_runtime("arbiter-test-build-", FIRST_UID)


@pytest.fixture
def limits(build_runtime: Path) -> SandboxLimits:
    value = make_limits(build_runtime, first_uid=FIRST_UID)
    require_sandbox(value)
    return value
