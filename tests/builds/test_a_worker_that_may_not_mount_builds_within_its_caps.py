"""A worker with the compose file's capabilities (no CAP_SYS_ADMIN) builds, and the kernel still caps each build.

The worker here is a real process of its own whose capability bounding set is exactly the compose
file's ``cap_add`` list, so that the kernel refuses its own mounts as a container's would.  Each
build mounts its capped ``/bot`` in a user namespace of its own (``workers.sandbox.buildroot``): one
build works, one that makes too many files is stopped at its file cap, one that writes too much
at its disk cap.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.builds.conftest import FIRST_UID, package
from tests.deploy.test_worker_capabilities import _worker_caps
from tests.referee.conftest import sandbox_runtime
from tests.referee.support import REPO, SLOTS
from workers.sandbox.limits import SandboxLimits

WORKER = """
import json, sys
from pathlib import Path
from workers.packages.build import BuildLimits, build_package, builds_here
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.mounts import can_mount
from workers.sandbox.start import capabilities

limits = SandboxLimits(runtime_dir=sys.argv[1], first_uid=int(sys.argv[2]), slots=int(sys.argv[3]), warm=0)
caps = BuildLimits(seconds=20, memory_mb=256, processes=64, tmp_mb=64, disk_mb=8, files=300)
said = {"may_mount": can_mount(Path(sys.argv[1])), "builds_here": builds_here(limits)}
said["gaps"] = capabilities(limits)["gaps"]
for name, build in json.loads(sys.argv[4]).items():
    outcome = build_package(Path(sys.argv[5]).read_bytes(), "bot.zip", tuple(build), bots=limits, limits=caps)
    said[name] = [outcome.ok, outcome.log, len(outcome.archive)]
print(json.dumps(said))
"""
BUILDS = {
    "works": ["sh", "-c", "printf '#!/bin/sh\\n' > bot && chmod +x bot"],
    "files": ["python3", "-c", "for i in range(100000): open(f'f{i}', 'w').close()"],
    "disk": ["sh", "-c", "head -c 67108864 /dev/zero > big"],
}


@pytest.fixture
def runtime() -> Iterator[Path]:
    """The worker's own runtime directory (its slots' copies are on disk there)."""
    yield from sandbox_runtime("arbiter-test-nomount-", FIRST_UID)


def test_a_worker_without_cap_sys_admin_builds_and_each_build_is_capped_by_the_kernel(
    limits: SandboxLimits, runtime: Path, tmp_path: Path
) -> None:
    sources = tmp_path / "bot.zip"
    sources.write_bytes(package(["true"], {"bot.c": "int main(void) { return 0; }\n"}))
    bounding = ",".join(["-all", *(f"+{c.lower()}" for c in _worker_caps())])
    argv = [sys.executable, "-c", WORKER, str(runtime), str(FIRST_UID), str(SLOTS), json.dumps(BUILDS), str(sources)]
    done = subprocess.run(
        ["setpriv", f"--bounding-set={bounding}", "--", *argv],
        capture_output=True, text=True, cwd=REPO, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.splitlines()[-1])
    assert said["may_mount"] is False and said["builds_here"] is True
    assert not any("build" in gap for gap in said["gaps"]), said["gaps"]
    ok, log, size = said["works"]
    assert ok and size > 0, log
    ok, log, _ = said["files"]
    assert not ok and log.startswith("the build made more than 300 files and folders in /bot (ARBITER_BUILD_FILES):")
    assert "No space left on device" in log
    ok, log, _ = said["disk"]
    assert not ok and log.startswith("the build wrote more than 8 MiB to /bot (ARBITER_BUILD_DISK_MB):"), log
    assert "No space left on device" in log
