"""The API half of deploy/image-smoke.sh: drive a running Arbiter over HTTP like a user would.

``python3 deploy/smoke_api.py health URL``
    /healthz answers 200 with the database and broker checks passed; /metrics is Prometheus text.
``python3 deploy/smoke_api.py play URL [--demo-token TOKEN] [--timeout S] [--languages L,L]``
    Sign up, upload the reference bots (a single file and a zip), start a round robin, wait until
    it and (with ``--demo-token``) every tournament of ``manage.py demo`` has finished, then check
    every match finished with every seat ``ok`` and /metrics counting the same matches.  Each of
    ``--languages`` is the starter ``arbiter new`` writes in it, uploaded as sources (built on the
    worker where it has a build) and played once against the random bot.

Standard library and this checkout only (the kit's starters), so it runs on any python3 outside
the image.  Prints one line per step
and a JSON summary; exit status 0 when everything held.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# The reference bots, where the kit ships them (kit/__init__.py: REFERENCE_BOTS).
REFERENCE_BOTS = ROOT / "kit" / "bots"


class SmokeError(Exception):
    """A check that failed; its message says what was expected and what came."""


class Client:
    """A small JSON client for Arbiter's API."""

    def __init__(self, base: str, token: str = "") -> None:
        self.base = base.rstrip("/")
        self.token = token

    def raw(self, method: str, path: str, body: bytes | None = None, content_type: str = "") -> tuple[int, bytes]:
        headers = {"Accept": "application/json"}
        if content_type:
            headers["Content-Type"] = content_type
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        url = path if path.startswith("http") else self.base + path
        request = urllib.request.Request(url, data=body, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def call(self, method: str, path: str, body: bytes | None = None, content_type: str = "") -> Any:
        code, data = self.raw(method, path, body, content_type)
        if not 200 <= code < 300:
            raise SmokeError(f"{method} {path}: HTTP {code} {data[:1000]!r}")
        return json.loads(data)

    def post_json(self, path: str, data: dict[str, Any]) -> Any:
        return self.call("POST", path, json.dumps(data).encode(), "application/json")

    def upload(self, game: str, name: str, filename: str, package: bytes) -> Any:
        boundary = uuid.uuid4().hex
        parts = [
            f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
            for key, value in (("game", game), ("name", name))
        ]
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="package"; filename="{filename}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n".encode()
            + package
            + f"\r\n--{boundary}--\r\n".encode()
        )
        return self.call("POST", "/api/bots/", b"".join(parts), f"multipart/form-data; boundary={boundary}")

    def pages(self, path: str) -> list[dict[str, Any]]:
        """Every result of a paginated list (page numbers or cursors: both give ``next``)."""
        found: list[dict[str, Any]] = []
        url: str | None = path
        while url:
            page = self.call("GET", url)
            found += page["results"]
            url = page.get("next")
        return found


def say(message: str) -> None:
    print(f"smoke-api: {message}", flush=True)


def metrics(client: Client) -> dict[str, float]:
    """/metrics as {name{labels}: value}, parsed by hand (no prometheus client outside the image)."""
    code, body = client.raw("GET", "/metrics")
    if code != 200:
        raise SmokeError(f"/metrics: HTTP {code}")
    values = {}
    for line in body.decode().splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            values[name] = float(value)
    return values


def check_health(client: Client, timeout: float) -> dict[str, Any]:
    """Wait for /healthz to answer 200 with every check that ran passing; then read /metrics."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            code, body = client.raw("GET", "/healthz")
        except OSError as exc:
            code, body = 0, str(exc).encode()
        if code == 200:
            break
        if time.monotonic() > deadline:
            raise SmokeError(f"/healthz did not answer 200 within {timeout:.0f} s: {code} {body[:500]!r}")
        time.sleep(1)
    health = json.loads(body)
    if not all(check["ok"] for check in health["checks"].values()):
        raise SmokeError(f"/healthz: {health}")
    checks = ", ".join(f"{name} {check.get('detail', '')}" for name, check in health["checks"].items())
    say(f"/healthz 200: {checks}")
    values = metrics(client)
    if not any(name.startswith("arbiter_matches") for name in values):
        raise SmokeError("/metrics has no arbiter_matches")
    say(f"/metrics: {len(values)} samples")
    return health


def _greedy_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted((REFERENCE_BOTS / "greedy").glob("*.py")):
            archive.write(path, path.name)
    return buffer.getvalue()


def _starter_zip(language: str, directory: Path) -> bytes:
    """The starter `arbiter new gamesup` writes in ``language``, as the sources a user uploads."""
    sys.path.insert(0, str(ROOT))
    from kit.starter import starter_write

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in starter_write(game="gamesup", directory=directory / language, language=language):
            archive.write(path, path.name)
    return buffer.getvalue()


def start_starters(client: Client, languages: list[str], timeout: float) -> list[int]:
    """Each language's starter against the random bot, one match each, once built; the tournaments' ids."""
    random_bot = (REFERENCE_BOTS / "random_bot.py").read_bytes()
    opponent = client.upload("gamesup", "random-for-starters", "random_bot.py", random_bot)["id"]
    with tempfile.TemporaryDirectory(prefix="arbiter-smoke-starters-") as scratch:
        bots = {
            language: client.upload("gamesup", f"starter-{language}", "bot.zip", _starter_zip(language, Path(scratch)))
            for language in languages
        }
    say(f"starters in {', '.join(languages)} uploaded; waiting for the worker to build them")
    deadline = time.monotonic() + timeout
    for language, bot in bots.items():
        while (version := client.call("GET", f"/api/bots/{bot['id']}/")["versions"][-1])["state"] == "building":
            if time.monotonic() > deadline:
                raise SmokeError(f"the {language} starter still building after {timeout:.0f} s: {version}")
            time.sleep(1)
        if version["state"] != "ready":
            raise SmokeError(f"the {language} starter's build: {version['state']}: {version.get('build_log')}")
    ids = []
    for language, bot in bots.items():
        tournament = client.post_json(
            "/api/tournaments/",
            {"game": "gamesup", "name": f"starter {language}", "participants": [bot["id"], opponent],
             "format": "single", "games_per_pairing": 1, "move_ms": 2000, "game_ms": 30000,
             "startup_ms": 10000, "start": True},
        )  # fmt: skip
        ids.append(tournament["id"])
    say(f"starters built; one match each against the random bot ({len(ids)} tournaments)")
    return ids


def start_round_robin(client: Client) -> tuple[Client, int]:
    """A new user uploads three bots and starts a round robin between them; (their client, tournament id)."""
    name = f"smoke-{uuid.uuid4().hex[:8]}"
    # A random password: the server refuses ones built from the username.
    user = client.post_json("/api/users/", {"username": name, "password": uuid.uuid4().hex})
    own = Client(client.base, user["token"])
    random_bot = (REFERENCE_BOTS / "random_bot.py").read_bytes()
    ids = [
        own.upload("gamesup", "random", "random_bot.py", random_bot)["id"],
        own.upload("gamesup", "greedy", "greedy.zip", _greedy_zip())["id"],
        own.upload("gamesup", "random-2", "random_bot.py", random_bot)["id"],
    ]
    tournament = own.post_json(
        "/api/tournaments/",
        {"game": "gamesup", "name": name, "participants": ids, "format": "single", "games_per_pairing": 2,
         "move_ms": 2000, "game_ms": 30000, "startup_ms": 10000, "start": True},
    )  # fmt: skip
    say(f"user {name} uploaded 3 bots; round robin {tournament['id']}: {tournament['progress']['total']} matches")
    return own, tournament["id"]


def wait_finished(client: Client, ids: list[int], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    waiting = list(ids)
    last = ""
    while waiting:
        states = {tid: client.call("GET", f"/api/tournaments/{tid}/") for tid in waiting}
        waiting = [tid for tid, t in states.items() if t["status"] == "running"]
        progress = ", ".join(f"{tid}: {t['progress']}" for tid, t in states.items() if tid in waiting)
        if progress != last and waiting:
            say(f"running {progress}")
            last = progress
        if waiting and time.monotonic() > deadline:
            raise SmokeError(f"tournaments still running after {timeout:.0f} s: {progress}")
        if waiting:
            time.sleep(2)
    unfinished = {tid: t["status"] for tid, t in states.items() if t["status"] != "finished"}
    if unfinished:
        raise SmokeError(f"tournaments that did not finish: {unfinished}")


def check_seats(client: Client, tournament_ids: list[int]) -> tuple[int, int]:
    """Every match finished, every seat ok; (matches, seats)."""
    matches = seats = 0
    bad = []
    for tid in tournament_ids:
        for match in client.pages(f"/api/matches/?tournament={tid}&ordering=id&page_size=100"):
            matches += 1
            seats += len(match["players"])
            statuses = [p["status"] for p in match["players"]]
            if match["status"] != "finished" or any(s != "ok" for s in statuses):
                detail = client.call("GET", f"/api/matches/{match['id']}/")
                stderr = [p.get("stderr", "")[-300:] for p in detail["players"]]
                bad.append({"match": match["id"], "status": match["status"], "seats": statuses,
                            "error": match["error_reason"], "stderr": stderr})  # fmt: skip
    if bad:
        raise SmokeError(f"{len(bad)} of {matches} matches not clean: {json.dumps(bad)[:4000]}")
    return matches, seats


def play(base: str, demo_token: str, timeout: float, languages: list[str]) -> dict[str, Any]:
    client = Client(base)
    started = time.monotonic()
    own, tournament = start_round_robin(client)
    groups: list[tuple[Client, list[int]]] = [(own, [tournament, *start_starters(own, languages, timeout)])]
    if demo_token:
        demo = Client(base, demo_token)
        demo_ids = [t["id"] for t in demo.pages("/api/tournaments/?owner=demo&page_size=100")]
        if not demo_ids:
            raise SmokeError("manage.py demo started no tournament")
        say(f"demo: {len(demo_ids)} round robins")
        groups.append((demo, demo_ids))
    for group_client, ids in groups:
        wait_finished(group_client, ids, timeout - (time.monotonic() - started))
    matches = seats = 0
    for group_client, ids in groups:
        m, s = check_seats(group_client, ids)
        matches, seats = matches + m, seats + s
    say(f"{matches} matches finished, {seats} of {seats} seats ok, in {time.monotonic() - started:.0f} s")
    values = metrics(client)
    if values.get("arbiter_matches_finished_total", 0) < matches:
        raise SmokeError(f"/metrics counts {values.get('arbiter_matches_finished_total')} finished matches")
    forfeits = {k: v for k, v in values.items() if k.startswith("arbiter_forfeits_total") and v}
    if forfeits:
        raise SmokeError(f"/metrics counts forfeits: {forfeits}")
    return {"matches": matches, "seats": seats, "seats_ok": seats, "seconds": round(time.monotonic() - started)}


def main(argv: list[str]) -> int:
    """Command line; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["health", "play"])
    parser.add_argument("url")
    parser.add_argument("--demo-token", default="")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--languages", default="", help="starters to build and play, e.g. python,c,rust")
    args = parser.parse_args(argv)
    try:
        if args.step == "health":
            check_health(Client(args.url), args.timeout)
        else:
            languages = [name for name in args.languages.split(",") if name]
            print(json.dumps(play(args.url, args.demo_token, args.timeout, languages)))
    except SmokeError as exc:
        say(f"FAILED: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
