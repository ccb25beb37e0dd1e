"""A live process set: the web server, Celery workers, beat and (optionally) a private Redis of one test.

Every set has a queue name of its own (ARBITER_QUEUE) on the shared Redis, a
var dir, a sandbox directory and a band of sandbox uids of its own, so that
sets run beside each other and beside a live service on the same machine.
Against PostgreSQL it uses the database it is given (the pytest fixture makes
a fresh one per set); with no database URL and no Redis URL it is embedded:
SQLite and Celery's filesystem broker in its var dir.

    with ProcessSet(tmp, database_url=url, redis_url=redis) as procs:
        procs.web()
        procs.worker("w1", concurrency=2)
        procs.wait_ready()
        procs.shell("print(1)")
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tests.live.api import Api
from tests.live.process import PYTHON, ROOT, SUPERVISE, Proc, celery_argv, free_port, redis_command, stop
from tests.live.services import queue_purge
from tests.live.uids import UidBand
from tests.waiting import poll
from workers.sandbox.mounts import unmount_all_under

# A developer's own settings never leak into a set: it sets everything it needs itself.
_NOT_INHERITED_PREFIXES = ("DJANGO_", "ARBITER_", "CELERY_")
_NOT_INHERITED = {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS"}


class ProcessSet:
    """Real processes against one database and one queue, and ways to start, signal, read and stop them."""

    def __init__(
        self,
        base_dir: Path,
        *,
        database_url: str | None = None,
        redis_url: str | None = None,
        env: Mapping[str, str | None] | None = None,
        tag: str = "live",
        supervise: bool = False,
    ) -> None:
        """A set working under ``base_dir``; ``env`` overrides the set's environment (None: unset).

        ``supervise`` restarts every worker and beat when it exits, as systemd or Docker would.
        """
        self.tag = f"{tag}-{uuid.uuid4().hex[:8]}"
        self.queue = f"arbiter-{self.tag}"
        self.base_dir = Path(base_dir)
        self.database_url = database_url
        self.redis_url = redis_url
        self.supervise = supervise
        artifacts = os.environ.get("ARBITER_TEST_ARTIFACTS")
        self.logs = (Path(artifacts) if artifacts else self.base_dir / "logs") / self.tag
        self.procs: dict[str, Proc] = {}
        self.band: UidBand | None = None
        self.sandbox_dir: Path | None = None
        self._overrides = dict(env or {})
        self._private_redis = False

    # -- life -------------------------------------------------------------------------

    def open(self) -> ProcessSet:
        """Take a uid band and make the sandbox directory; before any process starts."""
        self.logs.mkdir(parents=True, exist_ok=True)
        self.band = UidBand.acquire()
        # Not under pytest's 0700 temp root: the slot uids must reach their bots' copies.
        self.sandbox_dir = Path(tempfile.mkdtemp(prefix=f"arbiter-{self.tag}-"))
        self.sandbox_dir.chmod(0o711)
        return self

    def close(self, show_logs: bool = False) -> None:
        """Stop every process, print their logs if asked, free the uids, forget the private queue."""
        try:
            self.stop()
            if show_logs:
                self.print_logs()
        finally:
            if self.band is not None:
                self.band.release()
                self.band = None
            if self.sandbox_dir is not None:
                # A killed worker leaves its slots' file systems mounted; left there, every later
                # sandbox on the machine would copy them into its mount namespace.
                unmount_all_under(self.sandbox_dir)
                shutil.rmtree(self.sandbox_dir, ignore_errors=True)
                self.sandbox_dir = None
            if self.redis_url and not self._private_redis:
                queue_purge(self.redis_url, self.queue)

    def __enter__(self) -> ProcessSet:
        return self.open()

    def __exit__(self, exc_type: object, *_: object) -> None:
        self.close(show_logs=exc_type is not None)

    @property
    def embedded(self) -> bool:
        return self.database_url is None

    def env(
        self, host: str = "main", *, database_url: str | None = None, redis_url: str | None = None
    ) -> dict[str, str]:
        """The environment of a process on ``host`` (a package cache per host, as on separate machines)."""
        env = {
            k: v for k, v in os.environ.items() if not k.startswith(_NOT_INHERITED_PREFIXES) and k not in _NOT_INHERITED
        }
        env.update(
            DJANGO_SETTINGS_MODULE="tournaments.settings",
            SECRET_KEY="live-process-set-secret-key-not-for-production-0123456789",
            DEBUG="0",
            ALLOWED_HOSTS="127.0.0.1,localhost,testserver",
            PYTHONUNBUFFERED="1",
            ARBITER_QUEUE=self.queue,
            ARBITER_VAR_DIR=str(self.base_dir / "var"),
            ARBITER_PACKAGE_CACHE=str(self.base_dir / "hosts" / host / "packages"),
            # Every test's users sign up and log in from 127.0.0.1 to the same server: the per-address
            # limits would meter the suite, not a user.  The throttle tests set their own.
            ARBITER_RATE_SIGNUP_IP="10000/hour",
            ARBITER_RATE_LOGIN_IP="10000/hour",
        )
        if self.band is not None:
            env.update(ARBITER_SANDBOX_FIRST_UID=str(self.band.first), ARBITER_SANDBOX_SLOTS=str(self.band.count))
        if self.sandbox_dir is not None:
            # One lock dir for every process of the set: a uid is exclusive only among those locking it there.
            env.update(
                ARBITER_SANDBOX_DIR=str(self.sandbox_dir / "runtime"),
                ARBITER_SANDBOX_LOCK_DIR=str(self.sandbox_dir / "slots"),
            )
        if database := database_url or self.database_url:
            env["DATABASE_URL"] = database
        if broker := redis_url or self.redis_url:
            env["REDIS_URL"] = env["CELERY_BROKER_URL"] = broker
        for key, value in self._overrides.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        return env

    # -- manage.py and the database ---------------------------------------------------

    def manage(
        self, *args: str, check: bool = True, env: Mapping[str, str] | None = None, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        """``manage.py <args>`` against the set's database (on host "admin"); output captured."""
        result = subprocess.run(
            [PYTHON, "manage.py", *args],
            cwd=ROOT,
            env={**self.env("admin"), **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"manage.py {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
        return result

    def migrate(self) -> None:
        self.manage("migrate", "--noinput", "-v0")

    def shell(self, code: str, env: Mapping[str, str] | None = None) -> Any:
        """Run ``code`` in ``manage.py shell -c``; the last line it prints, parsed as JSON."""
        out = self.manage("shell", "-c", code, env=env).stdout
        return json.loads(out.strip().splitlines()[-1])

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        """Rows of one SQL statement, read straight from the set's PostgreSQL database."""
        import psycopg

        assert self.database_url, "query() reads PostgreSQL; an embedded set has shell()"
        with psycopg.connect(self.database_url, autocommit=True) as conn:
            return conn.execute(sql, params).fetchall()

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.query(sql, params)[0][0]

    # -- starting processes -----------------------------------------------------------

    def spawn(
        self,
        name: str,
        argv: Sequence[str],
        *,
        kind: str = "other",
        env: Mapping[str, str] | None = None,
        netns: str | None = None,
        supervise: bool = False,
        port: int = 0,
    ) -> Proc:
        """Start ``argv`` as process ``name`` (optionally supervised, inside network namespace ``netns``)."""
        assert name not in self.procs, f"{name} is already in the set"
        argv = list(argv)
        if supervise:
            argv = ["bash", "-c", SUPERVISE, "supervise", *argv]
        if netns is not None:
            argv = ["ip", "netns", "exec", netns, *argv]
        proc = Proc(name, argv, dict(env or self.env()), self.logs / f"{name}.log", kind, port)
        proc.start()
        self.procs[name] = proc
        return proc

    def web(
        self,
        server: str = "runserver",
        *,
        name: str = "web",
        processes: int = 2,
        threads: int = 1,
        env: Mapping[str, str] | None = None,
    ) -> Proc:
        """The web server on a free port: ``runserver`` (one process) or ``gunicorn`` (processes x threads);
        ``env`` is added to the set's environment."""
        port = free_port()
        if server == "gunicorn":
            argv = [PYTHON, "-m", "gunicorn", "tournaments.wsgi:application", "-b", f"127.0.0.1:{port}",
                    "-w", str(processes), "-k", "gthread", "--threads", str(threads),
                    "--log-level", "warning"]  # fmt: skip
        else:
            assert server == "runserver", server
            argv = [PYTHON, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"]
        return self.spawn(name, argv, kind="web", port=port, env={**self.env(), **(env or {})})

    def worker(
        self,
        name: str,
        *,
        concurrency: int = 1,
        queues: Sequence[str] = (),
        beat: bool = False,
        host: str = "main",
        netns: str | None = None,
        database_url: str | None = None,
        redis_url: str | None = None,
    ) -> Proc:
        """A Celery worker, node ``<name>@<host>``, on every queue unless ``queues``; ``beat`` embeds beat."""
        argv = celery_argv(
            "worker",
            node=f"{name}@{host}",
            concurrency=concurrency,
            queues=queues,
            schedule=self.base_dir / f"{name}-schedule" if beat else None,
        )
        env = self.env(host, database_url=database_url, redis_url=redis_url)
        return self.spawn(name, argv, kind="worker", env=env, netns=netns, supervise=self.supervise)

    def beat_worker(self, name: str = "beatworker", *, beat: bool = False, host: str = "main") -> Proc:
        """A one-process worker for the beat queue alone (docs/operations.md); ``beat`` embeds beat in it."""
        return self.worker(name, queues=[f"{self.queue}.beat"], beat=beat, host=host)

    def beat(self, name: str = "beat") -> Proc:
        """A separate ``celery beat``."""
        argv = celery_argv("beat", schedule=self.base_dir / f"{name}-schedule")
        return self.spawn(name, argv, kind="beat", supervise=self.supervise)

    def start_redis(self, name: str = "redis") -> Proc:
        """A private redis-server on a free port that saves nothing: a restart comes back empty.

        Start it before anything else: the set's processes connect to it from then on.
        """
        port = free_port()
        workdir = self.base_dir / name
        workdir.mkdir(parents=True, exist_ok=True)
        argv = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--dir", str(workdir)]  # fmt: skip
        proc = self.spawn(name, argv, kind="redis", port=port)
        self.redis_url, self._private_redis = f"redis://127.0.0.1:{port}/0", True
        self.wait_ready(name, timeout=20)
        return proc

    def redis_command(self, *words: str, name: str = "redis") -> str | None:
        """One command to the private Redis; its first reply line."""
        return redis_command(self.procs[name].port, *words)

    def wait_ready(self, *names: str, timeout: float = 120) -> None:
        """Wait until the named processes (all, by default) are ready: the web answers /healthz,
        a worker has logged "ready.", beat "Starting..."; fail at once when one exits instead."""
        pending = {n: self.procs[n] for n in names or self.procs}

        def all_ready() -> bool:
            for name, proc in list(pending.items()):
                if proc.ready():
                    del pending[name]
                elif proc.exited():
                    raise AssertionError(f"{name} exited before it was ready:\n{proc.tail()}")
            return not pending

        # Every tenth of a second: a restarted Redis is checked within moments of coming back.
        if not poll(all_ready, timeout, every=0.1):
            tails = "\n".join(f"--- {n}\n{p.tail(2000)}" for n, p in pending.items())
            raise AssertionError(f"not ready after {timeout:.0f} s: {', '.join(pending)}\n{tails}")

    # -- signals and stopping ---------------------------------------------------------

    def signal(self, name: str, sig: int) -> None:
        """Send ``sig`` to a process and everything it started (its process group)."""
        self.procs[name].signal(sig)

    def kill(self, name: str) -> None:
        self.signal(name, signal.SIGKILL)

    def pause(self, name: str) -> None:
        self.signal(name, signal.SIGSTOP)

    def resume(self, name: str) -> None:
        self.signal(name, signal.SIGCONT)

    def restart(self, name: str, timeout: float = 120) -> Proc:
        """Stop a process (if it still runs), start it again the same way, wait until it is ready."""
        proc = self.procs[name]
        stop([proc])
        proc.start()
        self.wait_ready(name, timeout=timeout)
        return proc

    def stop(self, *names: str, timeout: float = 20) -> None:
        """Stop the named processes (all, by default); a private Redis last, so the workers can ack."""
        chosen = [self.procs[n] for n in names or self.procs]
        stop([p for p in chosen if p.kind != "redis"], timeout)
        stop([p for p in chosen if p.kind == "redis"], timeout)

    # -- logs and the web -------------------------------------------------------------

    def log(self, name: str | None = None) -> str:
        """One process's output, or (``None``) every process's."""
        return "".join(self.procs[n].log() for n in ([name] if name else sorted(self.procs)))

    def log_mark(self) -> dict[str, int]:
        """How much every process has written so far (see ``log_since``)."""
        return {n: p.log_path.stat().st_size if p.log_path.exists() else 0 for n, p in self.procs.items()}

    def log_since(self, mark: Mapping[str, int], name: str | None = None) -> str:
        """Everything one process (``None``: every process) wrote after ``mark``."""
        text = []
        for each in [name] if name else sorted(self.procs):
            with open(self.procs[each].log_path, "rb") as f:
                f.seek(mark.get(each, 0))
                text.append(f.read().decode(errors="replace"))
        return "".join(text)

    def print_logs(self, chars: int = 6000) -> None:
        """The end of every log, for a failed test's report (the whole files stay in ``logs``)."""
        for name, proc in sorted(self.procs.items()):
            print(f"----- {name}: {proc.log_path} (last {chars} characters)\n{proc.tail(chars)}")

    @property
    def url(self) -> str:
        """The web server's base URL."""
        return self.procs["web"].url

    def api(self, token: str = "") -> Api:
        """A JSON client of the web server."""
        return Api(self.url, token)
