"""A real Arbiter web server in a subprocess (runserver on SQLite) for the black-box API tests."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SETUP = """
import json
from django.core.management import call_command
call_command("migrate", interactive=False, verbosity=0)
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from tournaments.games.services import game_sync
from tournaments.bots.services import bot_create
game_sync()
users = get_user_model().objects
user = users.create_user(username="tester", password="tester-pw")
rival = users.create_user(username="rival", password="rival-pw")
random_bot = open("bots/random_bot.py", "rb").read()
mine = bot_create(owner=user, game_id="gamesup", name="mine", package=random_bot, filename="random_bot.py").bot
theirs = bot_create(owner=rival, game_id="gamesup", name="theirs", package=random_bot, filename="random_bot.py").bot
print(json.dumps({"token": Token.objects.create(user=user).key, "bot": mine.id, "rival_bot": theirs.id}))
"""


@dataclass
class LiveServer:
    base: str
    token: str
    bot: int
    rival_bot: int
    env: dict[str, str]
    log: Path  # the server's stdout and stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(var_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY")}
    env.update(
        DJANGO_SETTINGS_MODULE="tournaments.settings",
        ARBITER_VAR_DIR=str(var_dir),
        # Messages to workers go nowhere: these tests look at the API, not at games being played.
        CELERY_BROKER_URL="memory://",
        ARBITER_RATE_UPLOADS="100000/hour",
        ARBITER_RATE_CHALLENGES="100000/hour",
        ARBITER_CHALLENGES_PER_DAY="100000",
        ARBITER_LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )
    return env


@contextmanager
def live_server(var_dir: Path) -> Iterator[LiveServer]:
    """Migrate a fresh SQLite database under ``var_dir``, add a user with a token and two bots, serve it."""
    env = _env(var_dir)
    manage = [sys.executable, str(ROOT / "manage.py")]
    out = subprocess.run(
        [*manage, "shell", "-c", SETUP], cwd=ROOT, env=env, check=True, timeout=300, capture_output=True, text=True
    ).stdout
    ids = json.loads(out.strip().splitlines()[-1])
    port = _free_port()
    log = open(var_dir / "server.log", "wb")  # noqa: SIM115 (closed below)
    server = subprocess.Popen(
        [*manage, "runserver", f"127.0.0.1:{port}", "--noreload"], cwd=ROOT, env=env, stdout=log, stderr=log
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/games/", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((var_dir / "server.log").read_text()) from None
                time.sleep(0.2)
        log_path = var_dir / "server.log"
        yield LiveServer(base, ids["token"], ids["bot"], ids["rival_bot"], env, log_path)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
