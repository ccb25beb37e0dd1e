"""A missing requirement skips a test, except under CI, where it fails the test.

CI must never pass by skipping: with the ``CI`` environment variable set (as CI
services set it), a test that cannot run for want of a tool, a service or a
sandbox is a failure.  This module is the only one of the tests that reads
``CI`` (tests/test_test_rules.py checks that).
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def unavailable(reason: str) -> NoReturn:
    """Skip the test with ``reason``; under CI, fail it instead."""
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {reason}", pytrace=False)
    pytest.skip(reason)


def need(condition: bool, reason: str) -> None:
    """Go on when ``condition`` holds; otherwise skip (fail under CI) with ``reason``."""
    if not condition:
        unavailable(reason)
