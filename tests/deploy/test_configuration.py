"""Configuration: one typed reader, every variable documented and read, bad values stop a process at start."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from workers import config
from workers.sandbox.limits import SandboxLimits

ROOT = Path(__file__).resolve().parents[2]
CODE_DIRS = ("tournaments", "workers", "engines", "deploy")
# Settings named like variables but derived, not read from the environment.
DERIVED = {
    "ARBITER_SANDBOX",
    "ARBITER_QUEUES",
    "ARBITER_BEAT_QUEUE",
    "ARBITER_THROTTLE_RATES",
    "ARBITER_LIVE_REDIS_URL",  # the cache's Redis, else the broker's
    "ARBITER_LIVE_DIR",  # under ARBITER_VAR_DIR
}
# A value the sandbox tests plant in the worker's environment to prove bots never see it.
PLANTED = {"ARBITER_TEST_SECRET", "ARBITER_BENCH_RUN"}  # a benchmark marks its own processes
_OTHERS = "|".join(n for n in config.SETTINGS if not n.startswith("ARBITER_"))
_VARIABLE = re.compile(rf"\b(?:ARBITER_[A-Z0-9_]*[A-Z0-9]|{_OTHERS})\b")


def _python_files(*dirs: str) -> list[Path]:
    return [p for d in dirs for p in (ROOT / d).rglob("*.py") if "migrations" not in p.parts]


def _environment_reads(path: Path) -> list[str]:
    """``os.environ[...]``, ``os.environ.get``, ``os.getenv`` reads in one file (setdefault is a write)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Attribute) and node.attr == "getenv":
            found.append(f"{path}:{node.lineno} os.getenv")
        if (
            isinstance(node, ast.Subscript)
            and ast.unparse(node.value) == "os.environ"
            and isinstance(node.ctx, ast.Load)
        ):
            found.append(f"{path}:{node.lineno} os.environ[...]")
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("os.environ.get", "os.environ.items"):
            found.append(f"{path}:{node.lineno} {ast.unparse(node.func)}")
    return found


def test_the_reference_page_is_the_registry() -> None:
    page = (ROOT / "docs" / "configuration.md").read_text()
    assert config.markdown() in page, "docs/configuration.md is stale: regenerate it with python -m workers.config"


def test_nothing_reads_the_environment_but_the_registry() -> None:
    reads = [r for p in _python_files(*CODE_DIRS) if p != ROOT / "workers" / "config.py" for r in _environment_reads(p)]
    assert reads == []


def test_every_variable_in_the_code_is_registered_and_every_registered_one_is_used() -> None:
    used: dict[str, set[str]] = {}
    for path in _python_files(*CODE_DIRS, "tests", "bench"):
        if path in (ROOT / "workers" / "config.py", Path(__file__)):
            continue
        for name in _VARIABLE.findall(path.read_text()):
            used.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    known = {*config.SETTINGS, *DERIVED, *PLANTED, *_script_variables()}
    unregistered = {n: sorted(files) for n, files in used.items() if n not in known}
    assert unregistered == {}
    unused = [n for n in config.SETTINGS if n not in used]
    assert unused == []


def _script_variables() -> set[str]:
    """Variables of the deployment scripts (run-local.sh, compose): documented in docs/deploy.md."""
    scripts = [p for p in (ROOT / "deploy").iterdir() if p.suffix in (".sh", ".yml", ".example")]
    return {m for p in scripts for m in re.findall(r"\$\{(ARBITER_[A-Z0-9_]+)", p.read_text())}


def test_every_variable_the_docs_mention_exists_and_every_script_variable_is_documented() -> None:
    known = {*config.SETTINGS, *DERIVED, *_script_variables()}
    for doc in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        unknown = set(re.findall(r"\bARBITER_[A-Z0-9_]*[A-Z0-9]\b", doc.read_text())) - known
        assert not unknown, f"{doc.name} mentions {sorted(unknown)}, which nothing reads"
    deploy_doc = (ROOT / "docs" / "deploy.md").read_text()
    assert sorted(n for n in _script_variables() if n not in deploy_doc) == []


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("ARBITER_SANDBOX_MEMORY_MB", "lots", "must be a whole number"),
        ("ARBITER_SANDBOX_SLOTS", "0", "at least 1"),
        ("ARBITER_LEASE_S", "nan", "finite"),
        ("ARBITER_HTTPS", "maybe", "true/false"),
        ("ARBITER_RATE_UPLOADS", "60 per hour", "60/hour"),
        ("ARBITER_LOG_FORMAT", "xml", "text, json"),
    ],
)
def test_a_malformed_value_is_an_error_naming_the_variable(name: str, raw: str, message: str) -> None:
    with pytest.raises(config.ConfigError, match=name) as caught:
        config.read(name, {name: raw})
    assert message in str(caught.value)


def test_values_parse_and_defaults_apply() -> None:
    env = {"ARBITER_SANDBOX_MEMORY_MB": " 256 ", "ARBITER_ALLOW_UNSANDBOXED": "yes", "ARBITER_SANDBOX_SECCOMP": "off"}
    limits = SandboxLimits.from_env(env)
    assert (limits.memory_mb, limits.allow_unsandboxed, limits.seccomp, limits.processes) == (256, True, False, 64)
    assert limits.cpu_limit(10_000, 60_000) == 72
    assert config.read("ARBITER_LEASE_S", {"ARBITER_LEASE_S": ""}) == config.SETTINGS["ARBITER_LEASE_S"].default
    assert config.read("CSRF_TRUSTED_ORIGINS", {"CSRF_TRUSTED_ORIGINS": "https://a, https://b,"}) == [
        "https://a",
        "https://b",
    ]


def _arbiter_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "ARBITER_"))}
    for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "SECRET_KEY"):
        env.pop(name, None)
    env.update(DJANGO_SETTINGS_MODULE="tournaments.settings", ARBITER_VAR_DIR=str(tmp_path / "var"), **extra)
    return env


QUEUE_A_MATCH = """
from django.contrib.auth import get_user_model
from tournaments.bots.services import bot_create
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
user = get_user_model().objects.create_user("cfg")
bots = [bot_create(owner=user, game_id="gamesup", name=f"b{i}", package=b"print(1)\\n", filename="b.py").bot
        for i in range(2)]
t = tournament_start(tournament=tournament_create(owner=user, game_id="gamesup", name="t",
                     bot_ids=[b.id for b in bots], games_per_pairing=1), user=user)
print(t.matches.get().id)
"""

MATCH_STATE = "from tournaments.matches.models import Match; m = Match.objects.get(); print(m.status, m.attempt)"


def test_a_worker_with_a_malformed_sandbox_setting_refuses_to_start(tmp_path: Path) -> None:
    good = _arbiter_env(tmp_path)
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=good, check=True, timeout=300)
    subprocess.run([*manage, "shell", "-c", QUEUE_A_MATCH], cwd=ROOT, env=good, check=True, timeout=120)
    bad = _arbiter_env(tmp_path, ARBITER_SANDBOX_MEMORY_MB="lots")
    worker = subprocess.run(
        [sys.executable, "-m", "celery", "-A", "workers.celery_app", "worker", "-l", "info", "--pool", "solo"],
        cwd=ROOT, env=bad, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert worker.returncode != 0
    assert "ARBITER_SANDBOX_MEMORY_MB must be a whole number, got 'lots'" in worker.stderr
    # The match it would have played is untouched: still queued, never claimed.
    state = subprocess.run(
        [*manage, "shell", "-v0", "-c", MATCH_STATE], cwd=ROOT, env=good, capture_output=True, text=True, timeout=120
    )
    assert state.stdout.split() == ["queued", "0"], state.stderr
