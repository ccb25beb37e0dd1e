"""Fixtures for the referee tests (the count-test engine, a sandbox, short clocks)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.referee.support import FIRST_UID, SLOTS, engine_registered, make_limits, require_sandbox
from workers.sandbox import warm
from workers.sandbox.cgroups import detect
from workers.sandbox.group import remove_idle_groups
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.mounts import unmount_all_under
from workers.sandbox.slots import NoFreeSlotError, acquire_slot


@pytest.fixture(autouse=True)
def count_engine() -> Iterator[None]:
    with engine_registered():
        yield


def sandbox_runtime(prefix: str, first_uid: int) -> Iterator[Path]:
    """A private runtime directory for a session's bots, cleaned up after it with the slots' groups."""
    # Not under pytest's 0700 temp root: the slot uids must be able to traverse to their bot copies.
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o711)
    yield path
    # Launchers waiting for bots hold slots and live in their groups: end them, then remove the
    # test slots' control groups that nobody holds, then the directory (its mounts first).
    warm.close_all()
    support = detect("auto") if os.geteuid() == 0 else None
    if support is not None and support.usable:
        lock_dir = SandboxLimits().lock_path()
        remove_idle_groups(support, range(first_uid, first_uid + SLOTS), lambda uid: _slot_free(lock_dir, uid))
    unmount_all_under(path)
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def runtime() -> Iterator[Path]:
    yield from sandbox_runtime("arbiter-test-runtime-", FIRST_UID)


def _slot_free(lock_dir: Path, uid: int) -> bool:
    try:
        with acquire_slot(lock_dir, uid, 1, wait_s=0):
            return True
    except NoFreeSlotError:
        return False


@pytest.fixture
def limits(runtime: Path) -> SandboxLimits:
    value = make_limits(runtime)
    require_sandbox(value)
    return value
