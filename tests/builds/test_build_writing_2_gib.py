"""A build that writes 2 GiB to /bot is stopped by the kernel at its disk cap and fails saying so."""

from __future__ import annotations

from pathlib import Path

from tests.builds.conftest import failed_build_leaving_nothing
from workers.packages.build import BuildLimits
from workers.sandbox.limits import SandboxLimits

# A small cap keeps the test quick; the rule is the same at the default 256 MiB.
LIMITS = BuildLimits(seconds=20, memory_mb=256, processes=64, tmp_mb=64, disk_mb=32)
# 2 GiB in files of 16 MiB (each under the largest file a build may write).
WRITE_2_GIB = "for i in $(seq 128); do head -c 16777216 /dev/zero > big$i || exit 1; done"


def test_a_build_writing_2_gib_fails_at_its_disk_cap_and_leaves_nothing(
    limits: SandboxLimits, build_runtime: Path
) -> None:
    build = ["sh", "-c", WRITE_2_GIB]
    outcome = failed_build_leaving_nothing(build, bots=limits, runtime=build_runtime, limits=LIMITS)
    assert outcome.log.startswith("the build wrote more than 32 MiB to /bot (ARBITER_BUILD_DISK_MB):"), outcome.log
    assert "No space left on device" in outcome.log
