"""Claims under real contention on PostgreSQL: many processes, every match claimed exactly once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.service.conftest import ROOT

pytestmark = pytest.mark.services

SETUP = """
from django.contrib.auth import get_user_model
from tournaments.bots.services import bot_create
from tournaments.games.services import game_sync
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
game_sync()
user = get_user_model().objects.create_user(username="racer", password="x")
code = open("bots/random_bot.py", "rb").read()
bots = [bot_create(owner=user, game_id="gamesup", name=f"b{i}", package=code + b"#" * i, filename="r.py").bot
        for i in range(10)]
t = tournament_create(owner=user, game_id="gamesup", name="race", bot_ids=[b.id for b in bots], games_per_pairing=2)
tournament_start(tournament=t, user=user)
print(t.id)
"""

CLAIMER = """
import json, sys, time
from tournaments.matches.models import Match
from tournaments.matches.life import match_claim
ids = list(Match.objects.filter(tournament_id={tid}).order_by("id").values_list("id", flat=True))
while time.time() < {start}:
    time.sleep(0.001)
won = [i for i in ids if match_claim(match_id=i, worker="{name}") is not None]
print(json.dumps(won))
"""


def test_concurrent_claims_never_double_book(database: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(
        {
            "DATABASE_URL": database,
            "CELERY_BROKER_URL": "memory://",  # nothing is played here
            "ARBITER_VAR_DIR": str(tmp_path / "var"),
        }
    )
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True, timeout=120)
    out = subprocess.run(
        [*manage, "shell", "-c", SETUP], cwd=ROOT, env=env, check=True, capture_output=True, text=True, timeout=120
    )
    tid = int(out.stdout.strip().splitlines()[-1])
    start = time.time() + 6  # every process is up and waiting by then
    procs = [
        subprocess.Popen(
            [*manage, "shell", "-c", CLAIMER.format(tid=tid, start=start, name=f"w{n}")],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(6)
    ]
    won = [json.loads(p.communicate(timeout=120)[0].strip().splitlines()[-1]) for p in procs]
    claimed = [match for wins in won for match in wins]
    assert len(claimed) == 90  # C(10, 2) pairings x 2 games
    assert len(set(claimed)) == len(claimed), "a match was claimed twice"
    assert sum(1 for wins in won if wins) > 1, "no contention happened"
