"""Shared test configuration.

Engine, referee and sandbox tests need no service at all; tests marked
``services`` need a real PostgreSQL and Redis, named by
``ARBITER_TEST_DATABASE_URL`` and ``ARBITER_TEST_REDIS_URL``.  Without them
those tests skip with the reason, except under CI (``CI`` set), where a
missing service is a failure: CI must never pass by skipping.
"""

from __future__ import annotations

import os

import pytest

SERVICE_VARS = ("ARBITER_TEST_DATABASE_URL", "ARBITER_TEST_REDIS_URL")


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("services") is None:
        return
    missing = [name for name in SERVICE_VARS if not os.environ.get(name)]
    if not missing:
        return
    reason = f"needs PostgreSQL and Redis: set {' and '.join(missing)}"
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {reason}", pytrace=False)
    pytest.skip(reason)
