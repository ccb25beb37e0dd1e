"""A build that leaves folders 3,000 deep fails as the build's own doing, never as the worker's crash."""

from __future__ import annotations

from pathlib import Path

from tests.builds.conftest import failed_build_leaving_nothing
from workers.packages.build import MAX_DEPTH, BuildLimits
from workers.sandbox.limits import SandboxLimits

LIMITS = BuildLimits(seconds=20, memory_mb=256, processes=64, tmp_mb=64)
# Deeper than Python's recursion limit, and its path longer than PATH_MAX.
MAKE_DEEP_TREE = "import os\nopen('bot', 'w').close()\nfor _ in range(3000):\n    os.mkdir('dd')\n    os.chdir('dd')"


def test_a_build_leaving_a_3000_deep_tree_fails_with_a_clear_reason_and_leaves_nothing(
    limits: SandboxLimits, build_runtime: Path
) -> None:
    build = ["python3", "-c", MAKE_DEEP_TREE]
    outcome = failed_build_leaving_nothing(build, bots=limits, runtime=build_runtime, limits=LIMITS)
    assert outcome.log == f"the build's result cannot be used: its folders are nested more than {MAX_DEPTH} deep"
