"""Production settings: ``manage.py check --deploy`` is clean with the documented environment."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _check_deploy(tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "ARBITER_", "SECURE_"))}
    env.pop("DATABASE_URL", None)
    env.update(
        DJANGO_SETTINGS_MODULE="tournaments.settings",
        SECRET_KEY=secrets.token_urlsafe(64),
        DEBUG="0",
        ALLOWED_HOSTS="arbiter.example.org",
        ARBITER_VAR_DIR=str(tmp_path / "var"),
        **extra,
    )
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_check_deploy_is_clean_with_https(tmp_path: Path) -> None:
    result = _check_deploy(tmp_path, ARBITER_HTTPS="1", ARBITER_LOG_FORMAT="json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout, result.stdout + result.stderr


def test_check_deploy_names_what_plain_http_lacks(tmp_path: Path) -> None:
    result = _check_deploy(tmp_path)
    assert result.returncode != 0
    for code in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert code in result.stderr + result.stdout, code
