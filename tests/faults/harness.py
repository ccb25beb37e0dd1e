"""A small cluster of real processes for the fault tests.

Every test gets its own PostgreSQL database (cloned from a migrated
template), its own redis-server on a free port (started here with nothing
saved, so stopping it loses every message), its own queue names, and
Celery workers and a scheduler (beat plus a worker for the beat queue) as
separate processes, optionally inside network namespaces.  The test reads
the database directly with psycopg and runs ``manage.py`` for setup and
for ``ratings_rebuild --check``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
SLOW_BOT = (Path(__file__).parent / "bots" / "slow_bot.py").read_text()

# Short clocks: a dead worker's lease expires within seconds, the sweeper and
# the dispatcher run every second.
FAST_SETTINGS = {
    "ARBITER_LEASE_S": "4",
    "ARBITER_HEARTBEAT_S": "0.5",
    "ARBITER_SWEEP_EVERY_S": "1",
    "ARBITER_DISPATCH_AFTER_S": "3",
    "ARBITER_DISPATCH_EVERY_S": "1",
    "ARBITER_DB_IDLE_TX_TIMEOUT_S": "10",
    "ARBITER_MATCH_MAX_ATTEMPTS": "5",
}


def need(condition: bool, reason: str) -> None:
    """Skip a test whose requirement is missing; under CI, fail instead."""
    if condition:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {reason}", pytrace=False)
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def with_database(url: str, name: str, host: str | None = None) -> str:
    parts = urlparse(url)
    if host is not None:
        netloc = parts.netloc.rsplit("@", 1)
        port = parts.port or 5432
        netloc[-1] = f"{host}:{port}"
        parts = parts._replace(netloc="@".join(netloc))
    return urlunparse(parts._replace(path=f"/{name}"))


def wait_for(predicate: Callable[[], Any], timeout: float, what: str, every: float = 0.1) -> Any:
    """Poll until ``predicate`` returns something truthy; fail with ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


class RedisServer:
    """A private redis-server that keeps nothing on disk: a restart comes back empty."""

    def __init__(self, workdir: Path, port: int | None = None, bind: str = "127.0.0.1") -> None:
        self.workdir = workdir
        self.port = port or free_port()
        self.bind = bind
        self.proc: subprocess.Popen | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        return f"redis://{self.bind}:{self.port}/0"

    def start(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        log = open(self.workdir / f"redis-{self.starts}.log", "wb")  # noqa: SIM115 - lives with the process
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", self.bind, "--save", "", "--appendonly", "no",
             "--dir", str(self.workdir)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        wait_for(lambda: self.command("PING") == "+PONG", 20, f"redis-server on port {self.port}")

    def command(self, *words: str) -> str | None:
        """One inline command; the first reply line (None when the server is not there)."""
        try:
            with socket.create_connection((self.bind, self.port), timeout=2) as s:
                s.sendall((" ".join(words) + "\r\n").encode())
                return s.recv(4096).decode().split("\r\n")[0]
        except OSError:
            return None

    def kill(self) -> None:
        """Stop it hard: every message it held is gone."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=20)
        self.proc = None


class Cluster:
    """The processes of one fault test, and ways to look at them."""

    def __init__(self, tmp_path: Path, database_url: str, redis_url: str, **overrides: str) -> None:
        self.tmp = tmp_path
        self.database_url = database_url
        self.redis_url = redis_url
        self.queue = f"faults-{uuid.uuid4().hex[:8]}"
        self.logs = Path(os.environ.get("ARBITER_TEST_ARTIFACTS", tmp_path / "logs")) / self.queue
        self.logs.mkdir(parents=True, exist_ok=True)
        self.procs: dict[str, subprocess.Popen] = {}
        base = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "ARBITER_", "CELERY_"))}
        base.update(FAST_SETTINGS)
        base.update(
            {
                "ARBITER_QUEUE": self.queue,
                "SECRET_KEY": "fault-tests-secret-key-not-for-production-0123456789",
                "DEBUG": "0",
                "PYTHONUNBUFFERED": "1",
            }
        )
        base.update(overrides)
        self.base_env = base

    def env(self, host: str = "main", database_url: str | None = None, redis_url: str | None = None) -> dict[str, str]:
        """The environment of a process on ``host``: its own var dir and package cache, as on a separate machine."""
        env = dict(self.base_env)
        env.update(
            {
                "DATABASE_URL": database_url or self.database_url,
                "REDIS_URL": redis_url or self.redis_url,
                "CELERY_BROKER_URL": redis_url or self.redis_url,
                "ARBITER_VAR_DIR": str(self.tmp / host / "var"),
                "ARBITER_PACKAGE_CACHE": str(self.tmp / host / "packages"),
            }
        )
        return env

    # -- processes -------------------------------------------------------------------

    def spawn(
        self, name: str, argv: Sequence[str], env: dict[str, str], netns: str | None = None, supervise: bool = True
    ) -> subprocess.Popen:
        """Start ``argv`` in its own session; ``supervise`` restarts it when it exits, as systemd or
        Docker's restart policy would (a Celery worker may exit on a lost broker connection)."""
        if supervise:
            argv = ["bash", "-c", SUPERVISE, "supervise", *argv]
        if netns is not None:
            argv = ["ip", "netns", "exec", netns, *argv]
        log = open(self.logs / f"{name}.log", "ab")  # noqa: SIM115 - lives with the process
        proc = subprocess.Popen(
            list(argv), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.procs[name] = proc
        return proc

    def worker(
        self,
        name: str,
        concurrency: int = 1,
        host: str = "main",
        netns: str | None = None,
        database_url: str | None = None,
        redis_url: str | None = None,
    ) -> subprocess.Popen:
        """A Celery worker consuming every queue; node name ``<name>@<host>``."""
        return self.spawn(
            name,
            [PYTHON, "-m", "celery", "-A", "workers.celery_app", "worker", "-c", str(concurrency), "-l", "info",
             "--without-gossip", "--without-mingle", "--without-heartbeat", "-n", f"{name}@{host}"],
            self.env(host, database_url, redis_url),
            netns,
        )  # fmt: skip

    def scheduler(self) -> subprocess.Popen:
        """Beat, embedded in a one-process worker for the beat queue (sweeper and dispatcher)."""
        return self.spawn(
            "scheduler",
            [PYTHON, "-m", "celery", "-A", "workers.celery_app", "worker", "-B", "-s", str(self.tmp / "beat-schedule"),
             "-Q", f"{self.queue}.beat", "-c", "1", "-l", "info", "--without-gossip", "--without-mingle",
             "--without-heartbeat", "-n", "scheduler@main"],
            self.env("scheduler"),
        )  # fmt: skip

    def wait_ready(self, *names: str, timeout: float = 120) -> None:
        """Wait until each named Celery worker says it is ready to take messages."""
        for name in names:
            wait_for(lambda n=name: "@" in self.log(n) and " ready." in self.log(n), timeout, f"worker {name}")

    def signal(self, name: str, sig: int) -> None:
        """Send ``sig`` to a process and everything it started (its session's process group)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.procs[name].pid, sig)

    def stop(self) -> None:
        for name in self.procs:
            self.signal(name, signal.SIGCONT)
            self.signal(name, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for name, proc in self.procs.items():
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.signal(name, signal.SIGKILL)
                proc.wait(timeout=20)

    def log(self, name: str | None = None) -> str:
        """One process's output, or (``None``) every process's."""
        names = [name] if name else sorted(self.procs)
        return "".join((self.logs / f"{n}.log").read_text(errors="replace") for n in names)

    def log_mark(self) -> dict[str, int]:
        """How much every process has written so far (see ``log_since``)."""
        return {n: (self.logs / f"{n}.log").stat().st_size for n in self.procs}

    def log_since(self, mark: dict[str, int]) -> str:
        """Everything every process wrote after ``mark``."""
        text = []
        for n in sorted(self.procs):
            with open(self.logs / f"{n}.log", "rb") as f:
                f.seek(mark.get(n, 0))
                text.append(f.read().decode(errors="replace"))
        return "".join(text)

    # -- manage.py and the database ----------------------------------------------------

    def manage(self, *args: str, check: bool = True, broker: str | None = None) -> subprocess.CompletedProcess:
        env = self.env("admin")
        if broker is not None:
            env["CELERY_BROKER_URL"] = env["REDIS_URL"] = broker
        result = subprocess.run(
            [PYTHON, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
        )
        if check and result.returncode != 0:
            raise AssertionError(f"manage.py {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
        return result

    def shell(self, code: str, broker: str | None = None) -> Any:
        """Run ``code`` in ``manage.py shell``; its last printed line, parsed as JSON."""
        out = self.manage("shell", "-c", code, broker=broker).stdout
        return json.loads(out.strip().splitlines()[-1])

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        import psycopg

        with psycopg.connect(self.database_url, autocommit=True) as conn:
            return conn.execute(sql, params).fetchall()

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.query(sql, params)[0][0]

    # -- tournaments -----------------------------------------------------------------

    def tournament(
        self,
        *,
        bots: int,
        delay: float,
        games_per_pairing: int,
        double: bool = False,
        max_plies: int = 12,
        broker: str | None = None,
    ) -> dict[str, Any]:
        """Upload ``bots`` slow bots (``delay`` s per move), create and start a gamesup round robin."""
        code = SETUP.format(
            bots=bots,
            source=json.dumps(SLOW_BOT.replace("DELAY = 0.0", f"DELAY = {delay!r}")),
            games=games_per_pairing,
            format="double" if double else "single",
            plies=max_plies,
        )
        return self.shell(code, broker=broker)

    def progress(self, tournament_id: int) -> dict[str, int]:
        rows = self.query(
            "SELECT status, count(*) FROM matches_match WHERE tournament_id = %s GROUP BY status", [tournament_id]
        )
        return dict(rows)

    def wait_finished(self, tournament_id: int, timeout: float) -> None:
        def done() -> bool:
            return self.scalar("SELECT status FROM competitions_tournament WHERE id = %s", [tournament_id]) != "running"

        try:
            wait_for(done, timeout, f"tournament {tournament_id} to finish", every=0.5)
        except AssertionError as exc:
            raise AssertionError(f"{exc}: {self.progress(tournament_id)}; logs in {self.logs}") from None

    def running_on(self, tournament_id: int, node: str) -> tuple[int, int, str] | None:
        """A match of the tournament running on Celery node ``node`` (id, attempt, worker), if any."""
        rows = self.query(
            "SELECT id, attempt, worker FROM matches_match WHERE tournament_id = %s AND status = 'running' "
            "AND worker LIKE %s ORDER BY id LIMIT 1",
            [tournament_id, f"{node}:%"],
        )
        return rows[0] if rows else None

    def assert_counted_once(self, tournament_id: int, matches: int) -> dict[int, tuple[str, int, int]]:
        """Every match finished, each with one rating change per bot, and the ratings add up; returns them."""
        rows = self.query(
            "SELECT m.id, m.status, m.attempt, count(rc.id) FROM matches_match m "
            "LEFT JOIN ratings_ratingchange rc ON rc.match_id = m.id "
            "WHERE m.tournament_id = %s GROUP BY m.id",
            [tournament_id],
        )
        by_id = {r[0]: (r[1], r[2], r[3]) for r in rows}
        assert len(by_id) == matches
        assert sorted({status for status, _, _ in by_id.values()}) == ["finished"], self.progress(tournament_id)
        assert {changes for _, _, changes in by_id.values()} == {2}, "a match changed ratings other than once"
        # Nothing else moved the ratings either: the games played add up to two per match.
        pool = self.scalar("SELECT rating_pool FROM competitions_tournament WHERE id = %s", [tournament_id])
        assert self.scalar("SELECT sum(games) FROM ratings_rating WHERE pool = %s", [pool]) == 2 * matches
        assert (
            self.scalar(
                "SELECT count(*) FROM ratings_ratingchange rc JOIN ratings_rating r ON r.id = rc.rating_id "
                "WHERE r.pool = %s",
                [pool],
            )
            == 2 * matches
        )
        return by_id

    def assert_rebuild_agrees(self) -> str:
        """``manage.py ratings_rebuild --check`` finds no difference (exit status 0)."""
        result = self.manage("ratings_rebuild", "--check", check=False)
        assert result.returncode == 0, f"rebuild differs:\n{result.stdout}\n{result.stderr}"
        assert " 0 differ" in result.stdout, result.stdout
        return result.stdout


# Restart the command a second after it exits, until this shell is killed with it.
SUPERVISE = 'while true; do "$@"; echo "supervise: exited with status $?, restarting" >&2; sleep 1; done'


SETUP = """
import json
from django.contrib.auth import get_user_model
from tournaments.bots.services import bot_create
from tournaments.games.services import game_sync
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
game_sync()
user = get_user_model().objects.create_user(username="faults", password="x")
source = json.loads({source!r}).encode()
bots = [bot_create(owner=user, game_id="gamesup", name=f"slow{{i}}", package=source + b"#" * i, filename="slow.py").bot
        for i in range({bots})]
t = tournament_create(owner=user, game_id="gamesup", name="faults", bot_ids=[b.id for b in bots],
                      options={{"max_plies": {plies}}}, format="{format}", games_per_pairing={games},
                      move_ms=3000, game_ms=30000, startup_ms=10000)
t = tournament_start(tournament=t, user=user)
print(json.dumps({{"id": t.id, "pool": t.rating_pool, "matches": t.matches.count()}}))
"""


def have_sandbox() -> None:
    need(shutil.which("bwrap") is not None, "bubblewrap is not installed (apt-get install bubblewrap)")
    need(shutil.which("redis-server") is not None, "redis-server is not installed (apt-get install redis-server)")
