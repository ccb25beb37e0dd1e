"""Fixtures for the fault tests: a live process set with a private Redis, short clocks and supervised workers."""

from __future__ import annotations

import pytest

from tests.faults.harness import FAST_SETTINGS, Cluster, have_sandbox
from tests.live.fixtures import LiveFactory


@pytest.fixture
def cluster(live_processes: LiveFactory) -> Cluster:
    """A set with nothing running but its own redis-server (``cluster.procs["redis"]``); the test starts the rest."""
    have_sandbox()
    return live_processes(redis="private", env=FAST_SETTINGS, supervise=True, tag="faults", set_class=Cluster)
