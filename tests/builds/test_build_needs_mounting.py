"""A worker that may not mount (no CAP_SYS_ADMIN, as in the compose file) cannot cap a build's disk: it builds nothing.

The worker here is a real process of its own, started without ``CAP_SYS_ADMIN`` in its bounding set, so that the
kernel refuses its mounts exactly as a container's would; bubblewrap still starts (user namespaces need no
capability).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.builds.conftest import FIRST_UID, package
from tests.referee.conftest import sandbox_runtime
from tests.referee.support import REPO, SLOTS
from workers.sandbox.limits import SandboxLimits

WORKER = """
import json, sys
from pathlib import Path
from workers.packages.build import BuildLimits, build_package
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.start import InfrastructureError, capabilities, mounts_own

limits = SandboxLimits(runtime_dir=sys.argv[1], first_uid=int(sys.argv[2]), slots=int(sys.argv[3]), warm=0)
build = ("sh", "-c", ": > bot")
try:
    outcome = build_package(Path(sys.argv[4]).read_bytes(), "bot.zip", build, bots=limits,
                            limits=BuildLimits(seconds=20, memory_mb=256, processes=64, tmp_mb=64))
    said = "built" if outcome.ok else "failed: " + outcome.log
except InfrastructureError as exc:
    said = "infrastructure: " + str(exc)
print(json.dumps({"mounts_own": mounts_own(limits), "gaps": capabilities(limits)["gaps"], "build": said}))
"""


@pytest.fixture
def runtime() -> Iterator[Path]:
    """The worker's own runtime directory (its slots' copies are on disk there)."""
    yield from sandbox_runtime("arbiter-test-nomount-", FIRST_UID)


def test_a_worker_that_may_not_mount_gives_builds_back_and_says_why(
    limits: SandboxLimits, runtime: Path, tmp_path: Path
) -> None:
    sources = tmp_path / "bot.zip"
    sources.write_bytes(package(["sh", "-c", ": > bot"], {}))
    argv = [sys.executable, "-c", WORKER, str(runtime), str(FIRST_UID), str(SLOTS), str(sources)]
    done = subprocess.run(
        ["setpriv", "--bounding-set", "-sys_admin", "--inh-caps", "-sys_admin", *argv],
        capture_output=True, text=True, cwd=REPO, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.splitlines()[-1])
    assert said["mounts_own"] is False
    assert any("no builds are claimed here" in gap for gap in said["gaps"]), said["gaps"]
    assert said["build"] == "infrastructure: this worker cannot cap a build's disk (it may not mount a tmpfs)"
