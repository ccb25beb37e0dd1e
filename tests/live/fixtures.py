"""pytest fixtures for live process sets (registered by tests/conftest.py).

``live_processes`` is a factory: each call starts a set of its own, with a
fresh database cloned from a template migrated once per run, and every set
is stopped when the test ends; when the test failed, the end of each process's
log is printed with the report.  ``live_processes_session`` is the same for a
set shared by the whole run (the API tests' one server).

    def test_something(live_processes):
        procs = live_processes(web="runserver", workers=2, concurrency=2)
        api = procs.api()
"""

from __future__ import annotations

import itertools
import os
import shutil
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from tests.ci import need
from tests.live.processes import ProcessSet
from tests.live.services import database_create, database_drop, database_name, with_database

_FAILED = pytest.StashKey[bool]()
_numbers = itertools.count()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Remember that a test failed (in setup or call), so its sets print their logs at teardown."""
    report = yield
    if report.failed:
        item.stash[_FAILED] = True
    return report


class LiveFactory:
    """Starts process sets on request and stops them all at :meth:`close`."""

    def __init__(self, base: Path, template: Callable[[], str]) -> None:
        self.base = base
        self.template = template
        self.sets: list[tuple[ProcessSet, str | None]] = []

    def __call__(
        self,
        *,
        web: str | None = None,
        workers: int = 0,
        concurrency: int = 1,
        beat: bool = False,
        embedded: bool = False,
        redis: str = "shared",
        env: Mapping[str, str | None] | None = None,
        supervise: bool = False,
        tag: str = "live",
        set_class: type[ProcessSet] = ProcessSet,
    ) -> ProcessSet:
        """A started, ready set.

        ``web``: "runserver" or "gunicorn"; ``workers`` Celery workers w1..wN with ``concurrency``
        processes each; ``beat``: a separate beat and a beat-queue worker; ``embedded``: SQLite and
        the filesystem broker instead of PostgreSQL and Redis; ``redis``: "shared" (the run's Redis,
        a private queue) or "private" (a redis-server of the set's own, see ``start_redis``).
        ``set_class``: a ProcessSet subclass with a suite's own helpers.  More processes can be
        added to the returned set (``worker``, ``beat_worker``, ``spawn``...).
        """
        n = next(_numbers)
        name = None if embedded else database_name(os.environ["ARBITER_TEST_DATABASE_URL"], f"{tag}_{os.getpid()}_{n}")
        database = None if name is None else database_create(_server(), name, template=self.template())
        shared = None if embedded or redis == "private" else os.environ["ARBITER_TEST_REDIS_URL"]
        procs = set_class(
            self.base / f"set{n}", database_url=database, redis_url=shared, env=env, tag=tag, supervise=supervise
        )
        self.sets.append((procs, name))
        procs.open()
        if redis == "private" and not embedded:
            need(
                shutil.which("redis-server") is not None, "redis-server is not installed (apt-get install redis-server)"
            )
            procs.start_redis()
        if embedded:
            procs.migrate()
        if web:
            procs.web(web)
        for k in range(workers):
            procs.worker(f"w{k + 1}", concurrency=concurrency)
        if beat:
            procs.beat_worker()
            procs.beat()
        procs.wait_ready()
        return procs

    def close(self, show_logs: bool) -> None:
        """Stop every set (newest first) and drop its database."""
        while self.sets:
            procs, name = self.sets.pop()
            try:
                procs.close(show_logs=show_logs)
            finally:
                if name is not None:
                    database_drop(_server(), name)


def _server() -> str:
    return os.environ["ARBITER_TEST_DATABASE_URL"]


@pytest.fixture(scope="session")
def live_template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A PostgreSQL database migrated once per run; every set's database is a copy (a second, not a migrate)."""
    name = database_name(_server(), f"live_tmpl_{os.getpid()}")
    database_create(_server(), name)
    try:
        # Migrating needs no broker: nothing is sent.
        ProcessSet(
            tmp_path_factory.mktemp("live-template"),
            database_url=with_database(_server(), name),
            env={"CELERY_BROKER_URL": "memory://"},
        ).migrate()
        yield name
    finally:
        database_drop(_server(), name)


@pytest.fixture
def live_processes(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LiveFactory]:
    """Start live process sets in a test: ``live_processes(web=..., workers=..., ...)``; see LiveFactory."""
    factory = LiveFactory(tmp_path / "live", lambda: request.getfixturevalue("live_template"))
    try:
        yield factory
    finally:
        factory.close(show_logs=request.node.stash.get(_FAILED, False))


@pytest.fixture(scope="session")
def live_processes_session(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveFactory]:
    """The same as ``live_processes`` for sets that serve the whole run."""
    factory = LiveFactory(tmp_path_factory.mktemp("live"), lambda: request.getfixturevalue("live_template"))
    try:
        yield factory
    finally:
        factory.close(show_logs=False)
