"""Shared test configuration.

Engine, referee and sandbox tests need no service at all; tests marked
``services`` need a real PostgreSQL and Redis (``sandbox``: bubblewrap), named by
``ARBITER_TEST_DATABASE_URL`` and ``ARBITER_TEST_REDIS_URL``.  Without them
those tests skip with the reason, except under CI (``CI`` set), where a
missing service is a failure: CI must never pass by skipping.

Every test that needs real processes (web, workers, beat) gets them from the
``live_processes`` fixture (tests/live/).
"""

from __future__ import annotations

import os
import shutil

import pytest

from tests.ci import need
from tests.live.fixtures import (  # noqa: F401 - fixtures and the hook that tells them a test failed
    live_processes,
    live_processes_session,
    live_template,
    pytest_runtest_makereport,
)

SERVICE_VARS = ("ARBITER_TEST_DATABASE_URL", "ARBITER_TEST_REDIS_URL")


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("sandbox") is not None:
        need(
            shutil.which("bwrap") is not None or bool(os.environ.get("ARBITER_ALLOW_UNSANDBOXED")),
            "bubblewrap is not installed (apt-get install bubblewrap)",
        )
    if item.get_closest_marker("services") is None:
        return
    missing = [name for name in SERVICE_VARS if not os.environ.get(name)]
    need(not missing, f"needs PostgreSQL and Redis: set {' and '.join(missing)}")
