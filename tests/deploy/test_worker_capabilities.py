"""The worker container's capability list (deploy/docker-compose.yml) is what the sandbox needs.

deploy/sandbox_probe.py starts a real sandboxed bot and does what a worker does to it.
Here it runs as root with its capability bounding set cut down to the compose file's
``cap_add`` list, the way Docker would start the worker; then once more with one of
them taken away, to show the probe notices.  (No Docker engine here: the user
namespace, seccomp and AppArmor parts of the container are not covered.)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.ci import need

ROOT = Path(__file__).resolve().parents[2]


def _worker_caps() -> list[str]:
    text = (ROOT / "deploy" / "docker-compose.yml").read_text()
    worker = text[text.index("\n  worker:\n") :]
    worker = worker[: worker.index("\n  beat:\n")]
    block = worker[worker.index("    cap_add:\n") :].splitlines()[1:]
    caps = []
    for line in block:
        match = re.match(r"\s+- ([A-Z_]+)", line)
        if not match:
            break
        caps.append(match.group(1))
    assert "cap_drop:\n      - ALL" in worker
    return caps


def _probe(caps: list[str]) -> dict[str, bool]:
    need(
        os.geteuid() == 0 and shutil.which("setpriv") is not None and shutil.which("bwrap") is not None,
        "the test needs root, setpriv and bwrap",
    )
    bounding = ",".join(["-all", *(f"+{c.lower()}" for c in caps)])
    result = subprocess.run(
        ["setpriv", f"--bounding-set={bounding}", "--", sys.executable, str(ROOT / "deploy" / "sandbox_probe.py")],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert result.stdout.strip(), result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_compose_worker_capabilities_are_enough() -> None:
    caps = _worker_caps()
    assert "SYS_ADMIN" not in caps
    found = _probe(caps)
    assert all(found.values()), found


def test_probe_notices_a_missing_capability() -> None:
    found = _probe([c for c in _worker_caps() if c != "SYS_PTRACE"])
    assert found["sandboxed"] and found["killed"]
    assert found["memory_measured"] is False and found["pipe_holder_seen"] is False
