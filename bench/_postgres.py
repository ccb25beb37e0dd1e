"""PostgreSQL seen from a benchmark: a PgBouncer of its own, and the CPU and commits of one database's backends.

Used by ``bench.scale``.  PgBouncer is Debian's package (``apt-get install
pgbouncer``), started on a free port with its own configuration in a
temporary directory, as the ``postgres`` user when started by root (it refuses root), and killed
by the kernel if the benchmark dies first (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import ctypes
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse

from bench import _common

TICKS = os.sysconf("SC_CLK_TCK")
#: The temporary directories of a run start with this and its pid (a killed run's are removed by the next).
TMP_PREFIX = "arbiter-bench-scale-"


# -- PgBouncer -----------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def die_with_parent() -> None:
    """Have the kernel kill this process when its parent dies (``PR_SET_PDEATHSIG``), even by SIGKILL."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)


def _as_postgres_dying_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    # PgBouncer refuses to run as root; and it must not outlive this benchmark, even killed.
    if os.getuid() == 0:
        entry = pwd.getpwnam("postgres")
        os.setgid(entry.pw_gid)
        os.setuid(entry.pw_uid)
    die_with_parent()  # after setuid, which would clear it


@contextmanager
def pgbouncer(server_url: str, database: str, pool_size: int, cpus: set[int] | None) -> Iterator[str]:
    """A PgBouncer in front of ``database`` on a free port, for the block; yields the URL through it."""
    server = urlparse(server_url)
    with tempfile.TemporaryDirectory(prefix=f"{TMP_PREFIX}{os.getpid()}-pgbouncer-") as tmp:
        if os.getuid() == 0:
            entry = pwd.getpwnam("postgres")
            os.chown(tmp, entry.pw_uid, entry.pw_gid)  # its log is written there
        port = _free_port()
        user = server.username or "postgres"
        config = Path(tmp, "pgbouncer.ini")
        Path(tmp, "users.txt").write_text(f'"{user}" ""\n')
        config.write_text(
            "\n".join(
                [
                    "[databases]",
                    f"{database} = host={server.hostname or '127.0.0.1'} port={server.port or 5432} "
                    f"dbname={database} user={user}",
                    "[pgbouncer]",
                    "listen_addr = 127.0.0.1",
                    f"listen_port = {port}",
                    "unix_socket_dir =",
                    "auth_type = trust",
                    f"auth_file = {tmp}/users.txt",
                    "pool_mode = session",
                    f"default_pool_size = {pool_size}",
                    "max_client_conn = 1000",
                    # The project asks for its idle-in-transaction timeout as a startup option.
                    "ignore_startup_parameters = extra_float_digits,options",
                    f"logfile = {tmp}/pgbouncer.log",
                    "",
                ]
            )
        )
        proc = subprocess.Popen(
            ["pgbouncer", str(config)],
            preexec_fn=_as_postgres_dying_with_parent,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            if cpus:
                os.sched_setaffinity(proc.pid, cpus)
            deadline = time.monotonic() + 15
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        log = Path(tmp, "pgbouncer.log")
                        raise RuntimeError(
                            "pgbouncer did not start: " + (log.read_text()[-500:] if log.exists() else "")
                        ) from None
                    time.sleep(0.05)  # a start-up wait outside any measurement
            netloc = f"{user}@127.0.0.1:{port}"
            yield server._replace(netloc=netloc, path=f"/{database}").geturl()
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


# -- the database's side ------------------------------------------------------------------


class Backends:
    """This database's backends: their CPU (from /proc), commits, and where they may run."""

    def __init__(self, server_url: str, database: str, cpus: set[int] | None) -> None:
        import psycopg

        self.database = database
        self.cpus = cpus
        # Connected to the server's own database: its statements are not counted as this one's commits.
        self.conn = psycopg.connect(server_url, autocommit=True)
        self.cpu: dict[int, int] = {}  # pid -> ticks last seen
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def pids(self) -> list[int]:
        rows = self.conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", [self.database]).fetchall()
        return [r[0] for r in rows]

    def commits(self) -> int:
        row = self.conn.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = %s", [self.database])
        return int((row.fetchone() or (0,))[0])

    def end_all(self) -> None:
        """End every other backend of the database (they report their counts as they exit) and wait for it."""
        self.conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
            [self.database],
        )
        deadline = time.monotonic() + 10
        while self.pids() and time.monotonic() < deadline:
            time.sleep(0.05)  # outside the timed window

    def sample(self) -> None:
        for pid in self.pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # ended meanwhile: its last sample stands
            self.cpu[pid] = int(fields[11]) + int(fields[12])  # utime + stime
            if self.cpus:
                try:
                    if os.sched_getaffinity(pid) != self.cpus:
                        os.sched_setaffinity(pid, self.cpus)
                except OSError:
                    pass

    def watch(self) -> None:
        """Sample every 0.2 s (and pin new backends) until :meth:`stop`."""
        self.cpu = {}
        self._stop.clear()

        def loop() -> None:
            while not self._stop.wait(0.2):
                self.sample()

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()

    def stop(self) -> float:
        """Stop watching; the CPU seconds the backends used since :meth:`watch`."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.sample()
        return sum(self.cpu.values()) / TICKS

    def close(self) -> None:
        self.conn.close()


def drop_leftovers() -> None:
    """Remove the databases and temporary directories of earlier runs whose process is gone (killed)."""
    import psycopg

    prefix = _common.database_name("scale_")
    with psycopg.connect(_common.database_url("postgres"), autocommit=True) as conn:
        names = [r[0] for r in conn.execute("SELECT datname FROM pg_database WHERE datname LIKE %s", [prefix + "%"])]
    for name in names:
        pid = name[len(prefix) :]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            _common.database_drop(name)
    for path in Path(tempfile.gettempdir()).glob(f"{TMP_PREFIX}*"):
        pid = path.name[len(TMP_PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(path, ignore_errors=True)


def cpu_split() -> tuple[set[int] | None, set[int] | None, str]:
    """(the database's CPUs, the workers' CPUs, what was done) for this machine."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None, None, "one CPU: the database and the workers share it"
    half = len(cpus) // 2
    db, rest = set(cpus[:half]), set(cpus[half:])
    return (
        db,
        rest,
        (
            f"this benchmark's backends pinned to CPU {sorted(db)}, the simulated workers and PgBouncer to "
            f"CPU {sorted(rest)} (the shared server's other processes are not moved)"
        ),
    )
