"""deploy/docker-compose.yml validates with Debian's docker-compose (no Docker engine needed),
and the Dockerfile copies only paths that exist.

``docker-compose config`` resolves anchors, merges and ``${VAR:?}`` interpolation the same
way ``up`` would, so a typo or a missing required setting fails here, not on a server.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.ci import unavailable

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "deploy" / "docker-compose.yml"
REQUIRED = {
    "SECRET_KEY": "k" * 60,
    "POSTGRES_PASSWORD": "pg-password",
    "ARBITER_HOST": "arbiter.example.org",
    "FLOWER_BASIC_AUTH": "admin:pw",
}


def _compose(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    tool = shutil.which("docker-compose")
    if tool is None:
        unavailable("docker-compose is not installed (apt-get install docker-compose)")
    # An empty env file: a developer's deploy/.env must not make this pass or fail.
    empty = tmp_path / "empty.env"
    empty.write_text("")
    clean = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path), **env}
    return subprocess.run(
        [tool, "-f", str(COMPOSE_FILE), "--env-file", str(empty), *args],
        capture_output=True, text=True, env=clean, timeout=60,
    )  # fmt: skip


def test_compose_file_is_valid(tmp_path: Path) -> None:
    result = _compose(tmp_path, "config", "-q", **REQUIRED)
    assert result.returncode == 0, result.stderr
    services = _compose(tmp_path, "config", "--services", **REQUIRED)
    assert set(services.stdout.split()) == {"db", "redis", "migrate", "web", "worker", "beat", "maintenance", "flower"}


@pytest.mark.parametrize("missing", sorted(REQUIRED))
def test_compose_refuses_to_start_without_a_required_setting(tmp_path: Path, missing: str) -> None:
    env = {k: v for k, v in REQUIRED.items() if k != missing}
    result = _compose(tmp_path, "config", "-q", **env)
    assert result.returncode != 0
    assert missing in result.stderr


def test_dockerfile_copies_existing_paths() -> None:
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    sources = [
        src
        for line in dockerfile.splitlines()
        if (m := re.match(r"COPY\s+(?!--)(.+)\s+\S+$", line.strip()))
        for src in m.group(1).split()
    ]
    assert {"workers", "kit", "tournaments"} <= set(sources)
    assert [s for s in sources if not (ROOT / s).exists()] == []
    for referenced in re.findall(r"/app/(deploy/[\w.-]+)", dockerfile + COMPOSE_FILE.read_text()):
        assert (ROOT / referenced).is_file(), referenced
