"""The kit's tests run bots in the real sandbox, in a uid range of their own.

The same fixtures as the referee tests (a private runtime directory, limits that
need a working sandbox), but with their own slot uids, so that they may run while
other suites hold theirs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.referee.conftest import sandbox_runtime
from tests.referee.support import make_limits, require_sandbox
from workers.sandbox.limits import SandboxLimits

FIRST_UID = 61700  # apart from the referee tests (61200+), the faults tests and the service's pool


@pytest.fixture(scope="session")
def kit_runtime() -> Iterator[Path]:
    yield from sandbox_runtime("arbiter-test-kit-", FIRST_UID)


@pytest.fixture
def limits(kit_runtime: Path) -> SandboxLimits:
    value = make_limits(kit_runtime, first_uid=FIRST_UID)
    require_sandbox(value)
    return value
