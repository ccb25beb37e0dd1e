"""Processes that find the same round over at once plan the next round once: the claim on the round number.

On PostgreSQL, as in production: each of two processes waits for one signal,
then asks for the next round of a Swiss whose first round is over.
"""

from __future__ import annotations

import signal

import pytest

from tests.live import PYTHON
from tests.live.fixtures import LiveFactory
from tests.waiting import wait_for

pytestmark = pytest.mark.services

SETUP = """
from django.contrib.auth import get_user_model
from tournaments.bots.services import bot_create
from tournaments.games.services import game_sync
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.models import Match
game_sync()
user = get_user_model().objects.create_user(username="rounds", password="x")
code = open("kit/bots/random_bot.py", "rb").read()
bots = [bot_create(owner=user, game_id="gamesup", name=f"b{i}", package=code, filename="r.py").bot for i in range(8)]
t = tournament_create(owner=user, game_id="gamesup", name="s", bot_ids=[b.id for b in bots], format="swiss",
                      rounds=3, games_per_pairing=1)
tournament_start(tournament=t, user=user)
# Round 1 over, as recordings whose hooks did not run would leave it.
Match.objects.filter(tournament=t).update(status="finished", attempt=1)
print(t.id)
"""

PLANNER = """
import signal
from tournaments.competitions.services.rounds import tournament_round_next
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
print("{ready}", flush=True)
signal.sigwait([signal.SIGUSR1])
print("planned:", tournament_round_next(tournament_id={tid}), flush=True)
"""
READY = "ready to plan"


def test_workers_ending_a_round_at_once_plan_the_next_once(live_processes: LiveFactory) -> None:
    procs = live_processes(tag="rounds", env={"CELERY_BROKER_URL": "memory://"})  # nothing is played here
    tid = procs.shell(SETUP)
    planners = [
        procs.spawn(f"planner{n}", [PYTHON, "manage.py", "shell", "-c", PLANNER.format(tid=tid, ready=READY)])
        for n in range(2)
    ]
    wait_for(lambda: all(READY in p.log() for p in planners), 120, "every planner to be ready")
    for planner in planners:
        planner.signal(signal.SIGUSR1)
    for planner in planners:
        wait_for(planner.exited, 120, f"{planner.name} to finish")
    said = sorted(line for p in planners for line in p.log().splitlines() if line.startswith("planned:"))
    assert said == ["planned: 2", "planned: None"], [p.tail() for p in planners]
    rounds = procs.query("SELECT number FROM competitions_tournamentround WHERE tournament_id = %s ORDER BY 1", [tid])
    assert rounds == [(1,), (2,)]
    assert procs.query("SELECT count(*) FROM matches_match WHERE tournament_id = %s", [tid]) == [(8,)]
