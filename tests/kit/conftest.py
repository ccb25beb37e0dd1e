"""The kit's tests run bots in the real sandbox, in a uid range of their own.

The same fixtures as the referee tests (a private runtime directory, limits that
need a working sandbox), but with their own slot uids, so that they may run while
other suites hold theirs.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.referee.conftest import _slot_free
from tests.referee.support import SLOTS, make_limits, require_sandbox
from workers import warm
from workers.botgroup import remove_idle_groups
from workers.cgroups import detect
from workers.limits import SandboxLimits
from workers.mounts import unmount_all_under

FIRST_UID = 61700  # apart from the referee tests (61200+), the faults tests and the service's pool


@pytest.fixture(scope="session")
def kit_runtime() -> Iterator[Path]:
    # Not under pytest's 0700 temp root: the slot uids must be able to traverse to their bot copies.
    path = Path(tempfile.mkdtemp(prefix="arbiter-test-kit-"))
    path.chmod(0o711)
    yield path
    warm.close_all()
    support = detect("auto") if os.geteuid() == 0 else None
    if support is not None and support.usable:
        lock_dir = SandboxLimits().lock_path()
        remove_idle_groups(support, range(FIRST_UID, FIRST_UID + SLOTS), lambda uid: _slot_free(lock_dir, uid))
    unmount_all_under(path)
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def limits(kit_runtime: Path) -> SandboxLimits:
    value = make_limits(kit_runtime, first_uid=FIRST_UID)
    require_sandbox(value)
    return value
