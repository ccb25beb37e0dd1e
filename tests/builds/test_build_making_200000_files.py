"""A build that makes 200,000 files is stopped by the kernel at its file cap and fails saying so."""

from __future__ import annotations

from pathlib import Path

from tests.builds.conftest import failed_build_leaving_nothing
from workers.packages.build import BuildLimits
from workers.sandbox.limits import SandboxLimits

# A small cap keeps the test quick; the rule is the same at the default 8192.
LIMITS = BuildLimits(seconds=20, memory_mb=256, processes=64, tmp_mb=64, files=1000)
MAKE_200000_FILES = "for i in range(200000): open(f'f{i}', 'w').close()"


def test_a_build_making_200000_files_fails_at_its_file_cap_and_leaves_nothing(
    limits: SandboxLimits, build_runtime: Path
) -> None:
    build = ["python3", "-c", MAKE_200000_FILES]
    outcome = failed_build_leaving_nothing(build, bots=limits, runtime=build_runtime, limits=LIMITS)
    expected = "the build made more than 1000 files and folders in /bot (ARBITER_BUILD_FILES):"
    assert outcome.log.startswith(expected), outcome.log
    assert "No space left on device" in outcome.log
