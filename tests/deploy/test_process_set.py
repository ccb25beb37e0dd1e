"""deploy/run-local.sh: the production process set (gunicorn, two Celery workers, beat) end to end.

Against the real PostgreSQL and Redis of the test environment: start the set,
sign up, upload two bots (a single file and a zip), play a small round robin in
the real sandbox, read standings, ratings, /healthz and /metrics, then stop the
set and check that not one of its processes is left.
"""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

pytestmark = [pytest.mark.services, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy" / "run-local.sh"
WAIT_S = 180


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _proc_stat(pid: str) -> tuple[str, int, int] | None:
    """(state, ppid, pgid) of a process, or None when it is gone."""
    try:
        line = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    state, ppid, pgid = line.rpartition(") ")[2].split()[:3]
    return state, int(ppid), int(pgid)


def _members(pgids: set[int]) -> dict[int, str]:
    """Processes (pid: state) of the given process groups; our own zombie children are reaped first."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or (stat := _proc_stat(entry)) is None or stat[2] not in pgids:
            continue
        if stat[0] == "Z" and stat[1] == os.getpid():
            # The test process may be a child subreaper (the referee makes it one): reap our orphans.
            os.waitpid(int(entry), os.WNOHANG)
            continue
        if stat[0] != "Z":  # a zombie is no process any more; its own parent reaps it
            found[int(entry)] = stat[0]
    return found


class ProcessSet:
    """run-local.sh driven from the test, with a small JSON HTTP client."""

    def __init__(self, env: dict[str, str], port: int, run_dir: Path) -> None:
        self.env, self.port, self.run_dir = env, port, run_dir
        self.base = f"http://127.0.0.1:{port}"
        self.token = ""

    def script(self, command: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(SCRIPT), command], cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=timeout
        )

    def pgids(self) -> set[int]:
        return {int(p.read_text()) for p in self.run_dir.glob("*.pid") if p.name != "beat.celery.pid"}

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted(self.run_dir.glob("*.log")))

    def raw(self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None) -> Any:
        headers = {"Accept": "application/json", **(headers or {})}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        request = urllib.request.Request(self.base + path, data=body, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers, exc.read()

    def call(self, method: str, path: str, body: bytes | None = None, content_type: str = "") -> Any:
        code, _, data = self.raw(method, path, body, {"Content-Type": content_type} if content_type else {})
        assert 200 <= code < 300, f"{method} {path}: {code} {data[:2000]!r}"
        return json.loads(data)

    def post_json(self, path: str, data: dict[str, Any]) -> Any:
        return self.call("POST", path, json.dumps(data).encode(), "application/json")

    def upload(self, game: str, name: str, filename: str, data: bytes) -> Any:
        boundary = uuid.uuid4().hex
        body = b"".join(
            [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in (("game", game), ("name", name))]
            + [f'--{boundary}\r\nContent-Disposition: form-data; name="package"; filename="{filename}"\r\n'
               "Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n",
               f"--{boundary}--\r\n".encode()]
        )  # fmt: skip
        return self.call("POST", "/api/bots/", body, f"multipart/form-data; boundary={boundary}")


@pytest.fixture
def process_set(database: str, tmp_path: Path) -> Iterator[ProcessSet]:
    redis = os.environ["ARBITER_TEST_REDIS_URL"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "ARBITER_", "CELERY_"))}
    port = _free_port()
    env.update(
        DATABASE_URL=database,
        REDIS_URL=redis,
        CELERY_BROKER_URL=redis,
        # A queue of our own: other runs sharing this Redis never take our matches.
        ARBITER_QUEUE=f"arbiter-deploy-{uuid.uuid4().hex[:8]}",
        ARBITER_VAR_DIR=str(tmp_path / "var"),
        ARBITER_RUN_DIR=str(tmp_path / "run"),
        ARBITER_BIND=f"127.0.0.1:{port}",
        ARBITER_WORKER_CONCURRENCY="1",
        ARBITER_STOP_TIMEOUT="30",
        ARBITER_LOG_FORMAT="json",
        WEB_CONCURRENCY="2",
        PYTHON=sys.executable,
        SECRET_KEY="deploy-test-" + uuid.uuid4().hex + uuid.uuid4().hex,
        DEBUG="0",
        ALLOWED_HOSTS="127.0.0.1,localhost",
    )
    svc = ProcessSet(env, port, tmp_path / "run")
    started = svc.script("start")
    pgids = svc.pgids()
    try:
        assert started.returncode == 0, started.stderr + svc.logs()
        yield svc
    finally:
        stopped = svc.script("stop")
        left = _members(pgids)
        assert stopped.returncode == 0, stopped.stderr
        assert not left, f"processes left after stop: {left}\n{svc.logs()}"
        assert not list(svc.run_dir.glob("*.pid"))


def _greedy_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted((ROOT / "bots" / "greedy").glob("*.py")):
            archive.write(path, path.name)
    return buffer.getvalue()


def _metrics(svc: ProcessSet) -> dict[str, float]:
    code, headers, body = svc.raw("GET", "/metrics")
    assert code == 200 and headers["Content-Type"].startswith("text/plain"), body[:500]
    samples = {}
    for family in text_string_to_metric_families(body.decode()):
        for s in family.samples:
            samples[s.name + json.dumps(s.labels, sort_keys=True) if s.labels else s.name] = s.value
    return samples


def test_process_set_plays_a_round_robin(process_set: ProcessSet) -> None:
    svc = process_set
    status = svc.script("status")
    assert status.returncode == 0, status.stdout
    assert sorted(line.split()[0] for line in status.stdout.splitlines()) == [
        "beat",
        "web",
        "worker-maintenance",
        "worker1",
        "worker2",
    ]
    assert len(svc.pgids()) == 5  # web, two workers, the beat-queue worker, beat

    svc.token = svc.post_json("/api/users/", {"username": "dora", "password": "dora-pw-1"})["token"]
    assert svc.post_json("/api/auth/token/", {"username": "dora", "password": "dora-pw-1"})["token"] == svc.token
    random_bot = svc.upload("gamesup", "random", "random_bot.py", (ROOT / "bots" / "random_bot.py").read_bytes())
    greedy_bot = svc.upload("gamesup", "greedy", "greedy.zip", _greedy_zip())
    tournament = svc.post_json(
        "/api/tournaments/",
        {"game": "gamesup", "name": "deploy", "participants": [random_bot["id"], greedy_bot["id"]],
         "format": "single", "games_per_pairing": 2, "move_ms": 2000, "game_ms": 30000, "startup_ms": 10000,
         "start": True},
    )  # fmt: skip
    total = tournament["progress"]["total"]
    assert tournament["status"] == "running" and total == 2

    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        tournament = svc.call("GET", f"/api/tournaments/{tournament['id']}/")
        if tournament["status"] != "running":
            break
        time.sleep(1)
    assert tournament["status"] == "finished", f"{tournament}\n{svc.logs()}"

    standings = svc.call("GET", f"/api/tournaments/{tournament['id']}/standings/")["standings"]
    assert sum(row["games"] for row in standings) == 2 * total
    assert sum(row["points"] for row in standings) == pytest.approx(total)
    board = svc.call("GET", f"/api/ratings/?game=gamesup&pool={tournament['rating_pool']}")["results"]
    assert sorted(row["games"] for row in board) == [total, total]
    assert sum(row["elo"] for row in board) == pytest.approx(3000.0)  # two-player Elo moves zero-sum

    code, _, body = svc.raw("GET", "/healthz")
    health = json.loads(body)
    assert code == 200, health
    assert all(check["ok"] for check in health["checks"].values()) and "skipped" not in health["checks"]["sandbox"]

    m = _metrics(svc)
    assert m["arbiter_matches_finished_total"] == total
    assert m['arbiter_matches{"status": "finished"}'] == total
    assert m['arbiter_matches{"status": "queued"}'] == 0
    assert m["arbiter_match_duration_seconds_count"] == total
    assert m["arbiter_rating_updates_total"] == 2 * total
    assert m['arbiter_tournaments{"status": "finished"}'] == 1
    assert m[f'arbiter_broker_queue_messages{{"queue": "{svc.env["ARBITER_QUEUE"]}"}}'] == 0

    # collectstatic ran; WhiteNoise serves the admin's files from gunicorn with DEBUG off.
    code, headers, _ = svc.raw("GET", "/static/admin/css/base.css", headers={"Accept": "text/css"})
    assert code == 200 and headers["Content-Type"].startswith("text/css")

    # JSON logs: gunicorn's access log and Celery's worker log are JSON lines.
    web_lines = [
        json.loads(line) for line in (svc.run_dir / "web.log").read_text().splitlines() if line.startswith("{")
    ]
    assert any(e["logger"] == "gunicorn.access" and "/healthz" in e["message"] for e in web_lines)
    worker_lines = [
        json.loads(line)
        for n in (1, 2)
        for line in (svc.run_dir / f"worker{n}.log").read_text().splitlines()
        if line.startswith("{")
    ]
    assert any(e["logger"].startswith("celery") for e in worker_lines)
