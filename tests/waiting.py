"""Waiting on facts: poll something another process makes true, until it holds or time runs out.

A test never sleeps to let another process get somewhere (ready, into a match,
dead): it names the fact it waits for, something it can observe (a file, a
database row's status, a log line, /proc, a port that answers), and polls for
it here.  The timeout only bounds a wait that should have ended long before:
a test that runs into it fails.  This is the one poll loop of the tests and of
``bench/`` (through tests/live); tests/test_test_rules.py keeps it that way.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def poll(predicate: Callable[[], T], timeout: float, every: float = 0.1) -> T:
    """Call ``predicate`` until it returns something truthy or ``timeout`` s have passed; its last value.

    For waits whose caller decides what a timeout means (stop harder, report the last state);
    :func:`wait_for` fails the test instead.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(every)


def wait_for(predicate: Callable[[], T], timeout: float, what: str, every: float = 0.1) -> T:
    """Poll until ``predicate`` returns something truthy (returned); fail with ``what`` after ``timeout`` s."""
    value = poll(predicate, timeout, every)
    if not value:
        raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
    return value
