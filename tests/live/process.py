"""One process of a live set, and the few primitives every live process needs.

A process runs in a session of its own (so it and everything it starts form one
process group to signal), writes stdout and stderr to one log file that is kept
after it ends, and knows how to tell that it is ready.  ``celery_argv`` is the
only place that writes a Celery command line; ``free_port`` the only place that
picks a port.  Waits poll with tests/waiting.py.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tests.waiting import poll

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
CELERY_APP = "workers.celery_app"
# Restart the command a second after it exits, until the group is killed: what systemd's
# Restart=always or Docker's restart policy does (a process can still die: the OOM killer, a crash).
SUPERVISE = 'while true; do "$@"; echo "supervise: exited with status $?, restarting" >&2; sleep 1; done'
# What each kind of process writes once it is ready (web and redis are asked instead).
READY_LINES = {"worker": " ready.", "beat": "beat: Starting..."}


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on right now (the kernel's pick)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def celery_argv(
    command: str = "worker",
    *,
    node: str = "",
    concurrency: int = 1,
    queues: Sequence[str] = (),
    schedule: Path | None = None,
    loglevel: str = "info",
) -> list[str]:
    """A ``celery -A workers.celery_app`` command line: a worker (``node``, ``concurrency``, ``queues``)
    or ``beat``; ``schedule`` is beat's state file, and on a worker it embeds beat (``-B``).

    Workers run without gossip, mingle and heartbeats: every set has queues of its own, so
    there is no cluster to talk to, and mingle alone costs a second of every start.  Keep
    ``loglevel`` at info where readiness matters: the worker's "ready." line is logged at info.
    """
    argv = [PYTHON, "-m", "celery", "-A", CELERY_APP, command, "-l", loglevel]
    if command == "beat":
        return [*argv, "-s", str(schedule)] if schedule else argv
    argv += ["-c", str(concurrency), "--without-gossip", "--without-mingle", "--without-heartbeat"]
    if node:
        argv += ["-n", node]
    if queues:
        argv += ["-Q", ",".join(queues)]
    if schedule is not None:
        argv += ["-B", "-s", str(schedule)]
    return argv


@dataclass
class Proc:
    """A process of the set: how to start it, its log, and its process group.

    The group leader is reaped only in :meth:`reap`, after the last signal to its group: a
    reaped pid may be reused, and a signal to a reused group would hit a stranger.
    """

    name: str
    argv: list[str]
    env: dict[str, str]
    log_path: Path
    kind: str = "other"  # web, worker, beat, redis or other: decides how readiness is seen
    port: int = 0  # web and redis listen here
    popen: subprocess.Popen | None = field(default=None, repr=False)
    log_offset: int = 0  # readiness counts only what this start wrote

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.popen is not None, f"{self.name} was never started"
        return self.popen.pid

    def start(self) -> None:
        """Start (or start again) in a new session, appending to the log."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        with open(self.log_path, "ab") as log:  # the child keeps its own copy of the descriptor
            self.popen = subprocess.Popen(
                self.argv, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )

    def exited(self) -> bool:
        """True once the leader has exited (it stays a zombie until :meth:`reap`)."""
        if self.popen is None or self.popen.returncode is not None:
            return True
        try:
            info = os.waitid(os.P_PID, self.popen.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return True
        return info is not None

    def signal(self, sig: int) -> None:
        """Send ``sig`` to the process and everything in its group (not once it has been reaped)."""
        if self.popen is not None and self.popen.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.popen.pid, sig)

    def reap(self) -> int | None:
        """Kill whatever is left of the group, then collect the leader's exit status."""
        if self.popen is None:
            return None
        self.signal(signal.SIGKILL)
        return self.popen.wait(timeout=30)

    def log(self) -> str:
        """Everything the process wrote, over all its starts."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def tail(self, chars: int = 4000) -> str:
        return self.log()[-chars:]

    def ready(self) -> bool:
        """Has this start said (or shown) that it is ready?"""
        if self.kind == "web":
            return http_answers(f"{self.url}/healthz")
        if self.kind == "redis":
            return redis_command(self.port, "PING") == "+PONG"
        line = READY_LINES.get(self.kind)
        if line is None:
            return True
        with open(self.log_path, "rb") as f:
            f.seek(self.log_offset)
            return line.encode() in f.read()


def stop(procs: Sequence[Proc], timeout: float = 20) -> None:
    """The one way to stop: SIGTERM to every group at once (thawed first, so a frozen process
    can act on it), SIGKILL to whatever still runs ``timeout`` s later, then reap them all.

    The whole group gets SIGTERM, pool processes included, as ``deploy/run-local.sh stop`` does:
    a match cut short is re-run (late acks), and no test waits for one to finish.
    """
    for proc in procs:
        proc.signal(signal.SIGCONT)
        proc.signal(signal.SIGTERM)
    poll(lambda: all(proc.exited() for proc in procs), timeout)
    for proc in procs:
        proc.reap()


def http_answers(url: str) -> bool:
    """True when ``url`` answers at all: a 503 from /healthz is an answer (a check failed; the
    response says which), and the tests say what they need from it."""
    try:
        with urllib.request.urlopen(url, timeout=10):
            return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def redis_command(port: int, *words: str, host: str = "127.0.0.1") -> str | None:
    """One inline Redis command; the first reply line (None when nothing answers)."""
    try:
        with socket.create_connection((host, port), timeout=2) as s:
            s.sendall((" ".join(words) + "\r\n").encode())
            return s.recv(4096).decode().split("\r\n")[0]
    except OSError:
        return None
