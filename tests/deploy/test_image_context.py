"""What reaches the container image: no secrets, no local state; and each role's health check.

deploy/image-smoke.sh builds the real image with .env files planted in its build context and
searches every layer for them; these tests are the quick, engine-less half: .dockerignore's
patterns (read the way Docker and podman read them) keep the files out, git ignores
deploy/.env, and deploy/healthcheck.py picks the right check for each container command.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from tests.ci import unavailable

ROOT = Path(__file__).resolve().parents[2]

EXCLUDED = [
    ".env",
    "deploy/.env",
    "deploy/production.env",
    "deploy/.env.local",
    "tournaments/.env",
    "var/arbiter.sqlite3",
    "var/packages/1/main.py",
    ".venv/bin/python",
    "kit/bots/greedy/.venv/lib/x.py",
    ".git/config",
    "tournaments/__pycache__/models.cpython-311.pyc",
    "arbiter-20260101T0000Z.dump",
    "deploy/tls.key",
]
KEPT = [
    "deploy/Dockerfile",
    "deploy/env.example",
    "deploy/gunicorn.conf.py",
    "deploy/healthcheck.py",
    "tournaments/settings.py",
    "workers/sandbox/start.py",
    "engines/__init__.py",
    "kit/bots/random_bot.py",
    "kit/bots/greedy/main.py",
    "docs/deploy.md",
    "manage.py",
    "pyproject.toml",
]


def _pattern(line: str) -> re.Pattern[str]:
    """One .dockerignore line as a regular expression over slash-separated paths (Go's filepath.Match plus **)."""
    out, i = "", 0
    line = line.strip("/")
    while i < len(line):
        if line.startswith("**", i):
            out += ".*"
            i += 2
            if line.startswith("/", i):  # "**/" also matches nothing at all
                out = out[:-2] + "(?:.*/)?"
                i += 1
        elif line[i] == "*":
            out += "[^/]*"
            i += 1
        elif line[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(line[i])
            i += 1
    return re.compile(out + "$")


def _ignored(path: str, rules: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """Docker's rule: the last matching line wins; a matched folder excludes everything below it."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    result = False
    for negated, pattern in rules:
        if any(pattern.match(prefix) for prefix in prefixes):
            result = not negated
    return result


def _dockerignore() -> list[tuple[bool, re.Pattern[str]]]:
    rules = []
    for raw in (ROOT / ".dockerignore").read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        rules.append((line.startswith("!"), _pattern(line.lstrip("!"))))
    return rules


@pytest.mark.parametrize("path", EXCLUDED)
def test_dockerignore_keeps_out(path: str) -> None:
    assert _ignored(path, _dockerignore()), path


@pytest.mark.parametrize("path", KEPT)
def test_dockerignore_lets_the_build_see(path: str) -> None:
    assert not _ignored(path, _dockerignore()), path


def test_dockerfile_copies_nothing_the_context_leaves_out() -> None:
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    copied = [src for src in re.findall(r"^COPY\s+(?!--)(.+)\s+\S+$", dockerfile, re.M) for src in src.split()]
    rules = _dockerignore()
    assert copied and [src for src in copied if _ignored(src, rules)] == []
    # And the build refuses an image with a .env, should the ignore file ever be lost.
    assert "-name '.env'" in dockerfile and "exit 1" in dockerfile
    assert re.search(r"^ARG BASE_IMAGE=\S+\nFROM \$\{BASE_IMAGE\}$", dockerfile, re.M)


def test_git_ignores_deploy_env() -> None:
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        unavailable("not a git checkout")
    for path in ("deploy/.env", ".env", "deploy/staging.env"):
        assert subprocess.run([git, "check-ignore", "-q", path], cwd=ROOT).returncode == 0, path
    assert subprocess.run([git, "check-ignore", "-q", "deploy/env.example"], cwd=ROOT).returncode == 1


def _healthcheck() -> ModuleType:
    spec = importlib.util.spec_from_file_location("arbiter_healthcheck", ROOT / "deploy" / "healthcheck.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("argv", "role"),
    [
        (["/opt/venv/bin/python3", "/opt/venv/bin/gunicorn", "-c", "/app/deploy/gunicorn.conf.py", "x:app"], "web"),
        (["/opt/venv/bin/python3", "/opt/venv/bin/celery", "-A", "workers.celery_app", "worker", "-l", "info",
          "--concurrency=2", "-n", "worker@%h"], "worker"),
        (["python", "-m", "celery", "-A", "workers.celery_app", "worker", "-c", "1", "-Q", "celery.beat",
          "-n", "maintenance@%h"], "maintenance"),
        (["celery", "-A", "workers.celery_app", "worker", "--queues=q.beat,q"], "worker"),
        (["/opt/venv/bin/python3", "/opt/venv/bin/celery", "-A", "workers.celery_app", "beat", "-l", "info"], "beat"),
        (["/opt/venv/bin/python3", "/opt/venv/bin/celery", "-A", "workers.celery_app", "flower", "--port=5555"],
         "flower"),
        (["python", "manage.py", "migrate", "--noinput"], "migrate"),
        (["/usr/bin/catatonit", "--", "celery", "worker"], "worker"),
        (["prlimit", "--as=1", "--", "setpriv", "--", "bwrap", "--args", "5", "--", "python3", "bot.py"], None),
        (["/bin/bash"], None),
    ],
)  # fmt: skip
def test_role_from_a_command_line(argv: list[str], role: str | None) -> None:
    assert _healthcheck().role_of(argv) == role


def test_role_from_the_environment_or_the_processes(tmp_path: Path) -> None:
    healthcheck = _healthcheck()
    proc = tmp_path / "proc"
    for pid, argv in ((1, [b"/usr/bin/catatonit", b"--", b"/opt/venv/bin/celery", b"-A", b"w", b"beat"]), (7, [])):
        (proc / str(pid)).mkdir(parents=True)
        (proc / str(pid) / "cmdline").write_bytes(b"\0".join(argv) + (b"\0" if argv else b""))
    (proc / "self").mkdir()
    assert healthcheck.detect_role({}, proc) == "beat"
    assert healthcheck.detect_role({"ARBITER_ROLE": "Web"}, proc) == "web"
    empty = tmp_path / "empty-proc"
    empty.mkdir()
    assert healthcheck.detect_role({}, empty) is None
