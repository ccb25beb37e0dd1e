"""The whole service over HTTP: a live server, PostgreSQL, Redis and two separate Celery workers.

A user signs up, uploads two bots, creates and starts a round robin, waits
for it, and reads standings and ratings.  The Elo values are recomputed
here, by hand from docs ratings.md, from the finished matches' ranks in
finish order.  Bots run in the real sandbox.
"""

from __future__ import annotations

import io
import json
import os
import signal
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
from urllib.parse import urlparse

import pytest

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=False)]

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
GAME = "gamesup"
WAIT_S = 180


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Service:
    """The web server and two workers as subprocesses, with a tiny JSON HTTP client."""

    def __init__(self, env: dict[str, str], port: int, logs: Path) -> None:
        self.env = env
        self.base = f"http://127.0.0.1:{port}"
        self.port = port
        self.logs = logs
        self.procs: list[subprocess.Popen] = []
        self.token = ""

    def start(self) -> None:
        subprocess.run(
            [PYTHON, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=self.env, check=True, timeout=120
        )
        self._spawn("web", [PYTHON, "manage.py", "runserver", "--noreload", f"127.0.0.1:{self.port}"])
        # Two separate workers, two processes each: claims decide who plays what.
        for n in range(2):
            self._spawn(
                f"worker{n}",
                [PYTHON, "-m", "celery", "-A", "workers.celery_app", "worker", "-c", "2", "-l", "info",
                 "--without-gossip", "--without-mingle", "--without-heartbeat",
                 "-n", f"e2e{n}-{uuid.uuid4().hex[:6]}@%h"],
            )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                self.get("/api/games/")
                return
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.3)
        raise AssertionError(f"the web server did not come up; see {self.logs}")

    def _spawn(self, name: str, argv: list[str]) -> None:
        log = open(self.logs / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        self.procs.append(
            subprocess.Popen(argv, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        )

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

    def request(self, method: str, path: str, body: bytes | None = None, content_type: str = "") -> Any:
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        if content_type:
            headers["Content-Type"] = content_type
        req = urllib.request.Request(self.base + path, data=body, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=30) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise AssertionError(f"{method} {path}: {exc.code} {exc.read()[:2000]!r}") from None

    def get(self, path: str) -> Any:
        return self.request("GET", path)

    def post_json(self, path: str, data: dict[str, Any]) -> Any:
        return self.request("POST", path, json.dumps(data).encode(), "application/json")

    def post_multipart(self, path: str, fields: dict[str, str], filename: str, data: bytes) -> Any:
        boundary = uuid.uuid4().hex
        parts = []
        for key, value in fields.items():
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode())
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="package"; filename="{filename}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n".encode()
            + data
            + b"\r\n"
        )
        parts.append(f"--{boundary}--\r\n".encode())
        return self.request("POST", path, b"".join(parts), f"multipart/form-data; boundary={boundary}")

    def all_pages(self, path: str) -> list[dict[str, Any]]:
        results: list[dict[str, Any]] = []
        page = self.get(path)
        while True:
            results.extend(page["results"])
            if not page["next"]:
                return results
            page = self.get(urlparse(page["next"])._replace(scheme="", netloc="").geturl())


@pytest.fixture
def service(database: str, tmp_path: Path) -> Iterator[Service]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(
        {
            "DATABASE_URL": database,
            "CELERY_BROKER_URL": os.environ["ARBITER_TEST_REDIS_URL"],
            "REDIS_URL": os.environ["ARBITER_TEST_REDIS_URL"],
            # Our own queue: other runs sharing this Redis never take our matches.
            "ARBITER_QUEUE": f"arbiter-e2e-{uuid.uuid4().hex[:8]}",
            "ARBITER_VAR_DIR": str(tmp_path / "var"),
            "SECRET_KEY": "end-to-end-test-secret-key-not-for-production",
            "DEBUG": "0",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "PYTHONUNBUFFERED": "1",
        }
    )
    logs = Path(os.environ.get("ARBITER_TEST_ARTIFACTS", tmp_path / "logs"))
    logs.mkdir(parents=True, exist_ok=True)
    svc = Service(env, _free_port(), logs)
    try:
        svc.start()
        yield svc
    finally:
        svc.stop()


def _greedy_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted((ROOT / "bots" / "greedy").glob("*.py")):
            archive.write(path, path.name)
    return buffer.getvalue()


def _elo_by_hand(matches: list[dict[str, Any]]) -> dict[int, tuple[float, int]]:
    """ratings.md for two seats: E = 1 / (1 + 10 ** ((Rb - Ra) / 400)), K 40 under 30 games, delta K (S - E)."""
    elo: dict[int, float] = {}
    games: dict[int, int] = {}
    for match in matches:
        (a, rank_a), (b, rank_b) = [(p["bot_version"], p["rank"]) for p in match["players"]]
        ra, rb = elo.setdefault(a, 1500.0), elo.setdefault(b, 1500.0)
        score_a = 1.0 if rank_a < rank_b else 0.5 if rank_a == rank_b else 0.0
        expected_a = 1 / (1 + 10 ** ((rb - ra) / 400))
        ka = 40 if games.get(a, 0) < 30 else 20
        kb = 40 if games.get(b, 0) < 30 else 20
        elo[a] = ra + ka * (score_a - expected_a)
        elo[b] = rb + kb * ((1 - score_a) - (1 - expected_a))
        games[a] = games.get(a, 0) + 1
        games[b] = games.get(b, 0) + 1
    return {v: (elo[v], games[v]) for v in elo}


def test_round_robin_end_to_end(service: Service) -> None:
    signup = service.post_json("/api/users/", {"username": "erin", "password": "erin-pw-1"})
    token = service.post_json("/api/auth/token/", {"username": "erin", "password": "erin-pw-1"})["token"]
    assert token == signup["token"]
    service.token = token

    random_bot = service.post_multipart(
        "/api/bots/", {"game": GAME, "name": "random"}, "random_bot.py", (ROOT / "bots" / "random_bot.py").read_bytes()
    )
    greedy_bot = service.post_multipart("/api/bots/", {"game": GAME, "name": "greedy"}, "greedy.zip", _greedy_zip())
    tournament = service.post_json(
        "/api/tournaments/",
        {
            "game": GAME,
            "name": "end to end",
            "participants": [random_bot["id"], greedy_bot["id"]],
            "format": "double",
            "games_per_pairing": 3,
            "move_ms": 2000,
            "game_ms": 30000,
            "startup_ms": 10000,
            "start": True,
        },
    )
    assert tournament["status"] == "running" and tournament["progress"]["total"] == 6
    tid = tournament["id"]

    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        tournament = service.get(f"/api/tournaments/{tid}/")
        if tournament["status"] != "running":
            break
        time.sleep(1)
    assert tournament["status"] == "finished", f"tournament still {tournament['status']}: {tournament['progress']}"
    assert tournament["progress"]["finished"] == 6, tournament["progress"]

    matches = service.all_pages(f"/api/matches/?tournament={tid}&order=finished")
    assert [m["status"] for m in matches] == ["finished"] * 6
    assert all(m["result_reason"] for m in matches)
    details = [service.get(f"/api/matches/{m['id']}/") for m in matches]
    assert all(d["moves"] for d in details)
    # Both bots are erin's, so she reads their stderr; every seat played cleanly in the sandbox.
    assert all("stderr" in p and p["status"] in ("ok", "timeout") for d in details for p in d["players"])

    expected = _elo_by_hand(matches)
    pool = tournament["rating_pool"]
    board = service.all_pages(f"/api/ratings/?game={GAME}&pool={pool}")
    assert {r["bot_version"] for r in board} == set(expected)
    for row in board:
        elo, games = expected[row["bot_version"]]
        assert row["elo"] == pytest.approx(elo, abs=1e-9), (row, elo)
        assert row["games"] == games == row["wins"] + row["draws"] + row["losses"]

    standings = service.get(f"/api/tournaments/{tid}/standings/")["standings"]
    assert sum(r["games"] for r in standings) == 12
    assert sum(r["points"] for r in standings) == pytest.approx(6.0)
    for row in standings:
        assert row["elo"] == pytest.approx(round(expected[row["bot_version"]][0], 2), abs=0.01)
    crosstable = service.get(f"/api/tournaments/{tid}/crosstable/")
    assert [c["games"] for row in crosstable["rows"] for c in row["cells"] if c] == [6, 6]


def _elo_by_hand_teams(matches: list[dict[str, Any]]) -> dict[int, tuple[float, int]]:
    """ratings.md for teams: team rating = mean of its distinct members; each member moves by
    K / (T - 1) * sum over the other teams of (S - E), with its own K, and counts one game."""
    elo: dict[int, float] = {}
    games: dict[int, int] = {}
    for match in matches:
        members: dict[int, list[int]] = {}
        rank: dict[int, int] = {}
        for player in match["players"]:
            team = members.setdefault(player["team"], [])
            if player["bot_version"] not in team:
                team.append(player["bot_version"])
            rank[player["team"]] = player["rank"]
        teams = sorted(members)
        rating = {t: sum(elo.setdefault(v, 1500.0) for v in members[t]) / len(members[t]) for t in teams}
        changed = {}
        for t in teams:
            surplus = 0.0
            for u in teams:
                if u != t:
                    actual = 1.0 if rank[t] < rank[u] else 0.5 if rank[t] == rank[u] else 0.0
                    surplus += actual - 1 / (1 + 10 ** ((rating[u] - rating[t]) / 400))
            for v in members[t]:
                k = 40 if games.get(v, 0) < 30 else 20
                changed[v] = elo[v] + k / (len(teams) - 1) * surplus
        for v, value in changed.items():
            elo[v] = value
            games[v] = games.get(v, 0) + 1
    return {v: (elo[v], games[v]) for v in elo}


def _wait_finished(service: Service, tid: int) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        tournament = service.get(f"/api/tournaments/{tid}/")
        if tournament["status"] != "running":
            return tournament
        time.sleep(1)
    raise AssertionError(f"tournament {tid} did not finish in {WAIT_S} s")


def test_team_round_robins_end_to_end(service: Service) -> None:
    """Sequence for three players, and two teams of two where each bot fills both seats of its team."""
    service.token = service.post_json("/api/users/", {"username": "fay", "password": "fay-pw-12"})["token"]
    random_py = (ROOT / "bots" / "random_bot.py").read_bytes()
    bots = [
        service.post_multipart("/api/bots/", {"game": "sequence", "name": "random"}, "random_bot.py", random_py),
        service.post_multipart("/api/bots/", {"game": "sequence", "name": "greedy"}, "greedy.zip", _greedy_zip()),
        service.post_multipart(
            "/api/bots/", {"game": "sequence", "name": "random-b"}, "random_b.py", random_py + b"\n"
        ),
    ]
    common = {"game": "sequence", "move_ms": 2000, "game_ms": 60000, "startup_ms": 10000, "start": True}
    three = service.post_json(
        "/api/tournaments/",
        {**common, "participants": [b["id"] for b in bots], "seats": 3, "options": {"max_plies": 150},
         "games_per_pairing": 3},
    )  # fmt: skip
    pairs = service.post_json(
        "/api/tournaments/",
        {**common, "participants": [b["id"] for b in bots[:2]], "seats": 4,
         "options": {"teams": 2, "max_plies": 150}, "games_per_pairing": 2},
    )  # fmt: skip
    assert (three["progress"]["total"], pairs["progress"]["total"]) == (3, 2)
    for tournament in (three, pairs):
        done = _wait_finished(service, tournament["id"])
        assert done["status"] == "finished" and done["progress"]["finished"] == done["progress"]["total"], done
        matches = service.all_pages(f"/api/matches/?tournament={tournament['id']}&order=finished")
        if tournament is pairs:
            for match in matches:  # one participant on both seats of its team
                by_team = {}
                for player in match["players"]:
                    by_team.setdefault(player["team"], set()).add(player["bot_version"])
                assert sorted(len(v) for v in by_team.values()) == [1, 1]
        expected = _elo_by_hand_teams(matches)
        board = service.all_pages(f"/api/ratings/?game=sequence&pool={done['rating_pool']}")
        assert {r["bot_version"] for r in board} == set(expected)
        for row in board:
            elo, games = expected[row["bot_version"]]
            assert row["elo"] == pytest.approx(elo, abs=1e-9), (row, elo)
            assert row["games"] == games == len(matches)
