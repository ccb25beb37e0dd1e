"""Fixtures for the fault tests: a migrated template database, a per-test clone, a private Redis, a cluster."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.faults.harness import PYTHON, ROOT, Cluster, RedisServer, have_sandbox, with_database

_counter = itertools.count()


def _admin_url() -> str:
    return with_database(os.environ["ARBITER_TEST_DATABASE_URL"], "postgres")


def _base_name() -> str:
    return urlparse(os.environ["ARBITER_TEST_DATABASE_URL"]).path.lstrip("/") or "arbiter"


@pytest.fixture(scope="session")
def fault_template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A database migrated once per run; every test clones it (a second instead of a migrate)."""
    import subprocess

    import psycopg

    name = f"{_base_name()}_faults_tmpl_{os.getpid()}"
    with psycopg.connect(_admin_url(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "ARBITER_", "CELERY_"))}
    env.update(
        {
            "DATABASE_URL": with_database(os.environ["ARBITER_TEST_DATABASE_URL"], name),
            "CELERY_BROKER_URL": "memory://",
            "ARBITER_VAR_DIR": str(tmp_path_factory.mktemp("template-var")),
        }
    )
    try:
        subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True, timeout=300)
        yield name
    finally:
        with psycopg.connect(_admin_url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def fault_database(fault_template: str) -> Iterator[str]:
    """This test's own database, a copy of the migrated template; dropped afterwards."""
    import psycopg

    name = f"{_base_name()}_faults_{os.getpid()}_{next(_counter)}"
    with psycopg.connect(_admin_url(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{fault_template}"')
    try:
        yield with_database(os.environ["ARBITER_TEST_DATABASE_URL"], name)
    finally:
        with psycopg.connect(_admin_url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A private redis-server (never the shared one): stopping it loses its messages."""
    have_sandbox()
    server = RedisServer(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def cluster(tmp_path: Path, fault_database: str, redis_server: RedisServer) -> Iterator[Cluster]:
    have_sandbox()
    running = Cluster(tmp_path, fault_database, redis_server.url)
    try:
        yield running
    finally:
        running.stop()
