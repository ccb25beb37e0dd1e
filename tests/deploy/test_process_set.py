"""deploy/run-local.sh: the production process set (gunicorn, two Celery workers, beat) end to end.

Against the real PostgreSQL and Redis of the test environment: start the set,
sign up, upload two bots (a single file and a zip), play a small round robin in
the real sandbox, read standings, ratings, /healthz and /metrics, then stop the
set and check that not one of its processes is left.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.live import ROOT, Api, free_port, greedy_zip, random_bot
from tests.live.fixtures import LiveFactory

pytestmark = [pytest.mark.services, pytest.mark.slow]

SCRIPT = ROOT / "deploy" / "run-local.sh"
WAIT_S = 180


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


class RunLocal:
    """run-local.sh driven from the test: its processes are what is under test, so it starts them, not
    the live set; the set gives it the environment (database, queue, sandbox uids, var dir)."""

    def __init__(self, env: dict[str, str], port: int, run_dir: Path) -> None:
        self.env, self.run_dir = env, run_dir
        self.api = Api(f"http://127.0.0.1:{port}")

    def script(self, command: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(SCRIPT), command], cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=timeout
        )

    def pgids(self) -> set[int]:
        return {int(p.read_text()) for p in self.run_dir.glob("*.pid") if p.name != "beat.celery.pid"}

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted(self.run_dir.glob("*.log")))


@pytest.fixture
def process_set(live_processes: LiveFactory) -> Iterator[RunLocal]:
    procs = live_processes(tag="deploy")  # no processes of its own: the environment run-local.sh gets
    port = free_port()
    env = procs.env()
    env.update(
        # Under the set's logs: kept with them (and under $ARBITER_TEST_ARTIFACTS when set).
        ARBITER_RUN_DIR=str(procs.logs / "run-local"),
        ARBITER_BIND=f"127.0.0.1:{port}",
        ARBITER_WORKER_CONCURRENCY="1",
        ARBITER_STOP_TIMEOUT="30",
        ARBITER_LOG_FORMAT="json",
        WEB_CONCURRENCY="2",
        PYTHON=sys.executable,
        SECRET_KEY="deploy-test-" + uuid.uuid4().hex + uuid.uuid4().hex,
    )
    svc = RunLocal(env, port, procs.logs / "run-local")
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


def _metrics(api: Api) -> dict[str, float]:
    code, headers, body = api.raw("GET", "/metrics")
    assert code == 200 and headers["Content-Type"].startswith("text/plain"), body[:500]
    samples = {}
    for family in text_string_to_metric_families(body.decode()):
        for s in family.samples:
            samples[s.name + json.dumps(s.labels, sort_keys=True) if s.labels else s.name] = s.value
    return samples


def test_process_set_plays_a_round_robin(process_set: RunLocal) -> None:
    svc, api = process_set, process_set.api
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

    api.token = api.post_json("/api/users/", {"username": "dora", "password": "dora-pass-phrase"})["token"]
    second = api.post_json("/api/auth/token/", {"username": "dora", "password": "dora-pass-phrase"})["token"]
    assert second != api.token  # every request issues a token of its own (only hashes are kept)
    random = api.upload_bot("gamesup", "random", "random_bot.py", random_bot())
    # The opponent is another user's: games between one owner's bots are never rated.
    dora = api.token
    api.token = api.post_json("/api/users/", {"username": "eve", "password": "eve-pw-12"})["token"]
    greedy = api.upload_bot("gamesup", "greedy", "greedy.zip", greedy_zip())
    api.token = dora
    tournament = api.post_json(
        "/api/tournaments/",
        {"game": "gamesup", "name": "deploy", "participants": [random["id"], greedy["id"]],
         "format": "single", "games_per_pairing": 2, "move_ms": 2000, "game_ms": 30000, "startup_ms": 10000,
         "start": True},
    )  # fmt: skip
    total = tournament["progress"]["total"]
    assert tournament["status"] == "running" and total == 2

    tournament = api.wait_tournament(tournament["id"], WAIT_S)
    assert tournament["status"] == "finished", f"{tournament}\n{svc.logs()}"

    standings = api.get(f"/api/tournaments/{tournament['id']}/standings/")["standings"]
    assert sum(row["games"] for row in standings) == 2 * total
    assert sum(row["points"] for row in standings) == pytest.approx(total)
    board = api.get(f"/api/ratings/?game=gamesup&pool={tournament['rating_pool']}")["results"]
    assert sorted(row["games"] for row in board) == [total, total]
    assert sum(row["elo"] for row in board) == pytest.approx(3000.0)  # two-player Elo moves zero-sum

    code, _, body = api.raw("GET", "/healthz")
    health = json.loads(body)
    assert code == 200, health
    assert all(check["ok"] for check in health["checks"].values()) and "skipped" not in health["checks"]["sandbox"]

    m = _metrics(api)
    assert m["arbiter_matches_finished_total"] == total
    assert m['arbiter_matches{"status": "finished"}'] == total
    assert m['arbiter_matches{"status": "queued"}'] == 0
    assert m["arbiter_match_duration_seconds_count"] == total
    assert m["arbiter_rating_updates_total"] == 2 * total
    assert m['arbiter_tournaments{"status": "finished"}'] == 1
    assert m[f'arbiter_broker_queue_messages{{"queue": "{svc.env["ARBITER_QUEUE"]}"}}'] == 0

    # collectstatic ran; WhiteNoise serves the admin's files from gunicorn with DEBUG off.
    code, headers, _ = api.raw("GET", "/static/admin/css/base.css", headers={"Accept": "text/css"})
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
