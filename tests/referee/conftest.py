"""Fixtures for the referee tests (the count-test engine, a sandbox, short clocks)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.referee.support import engine_registered, make_limits, require_sandbox
from workers.limits import SandboxLimits
from workers.mounts import unmount_all_under


@pytest.fixture(autouse=True)
def count_engine() -> Iterator[None]:
    with engine_registered():
        yield


@pytest.fixture(scope="session")
def runtime() -> Iterator[Path]:
    # Not under pytest's 0700 temp root: the slot uids must be able to traverse to their bot copies.
    path = Path(tempfile.mkdtemp(prefix="arbiter-test-runtime-"))
    path.chmod(0o711)
    yield path
    # Slot directories keep their /tmp and /dev/shm mounts between bots: detach them first.
    unmount_all_under(path)
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def limits(runtime: Path) -> SandboxLimits:
    value = make_limits(runtime)
    require_sandbox(value)
    return value
