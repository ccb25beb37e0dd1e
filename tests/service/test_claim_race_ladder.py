"""Workers racing for one owner's matches never take a ladder match while that owner's work waits."""

from __future__ import annotations

import json
import signal

import pytest

from tests.live import PYTHON
from tests.live.fixtures import LiveFactory
from tests.service.shells import owner_with_bots
from tests.waiting import wait_for

pytestmark = pytest.mark.services

# One owner's round robin (every worker races for the same head) and a ladder's matches queued before it.
SETUP = (
    owner_with_bots(username="racer", bots=6)
    + """
import random
from tournaments.competitions.models import Ladder
from tournaments.competitions.services.ladders import ladder_save, ladders_top_up
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
ladder_save(ladder=Ladder(game_id="gamesup", seats=2, queued_target=10))
assert len(ladders_top_up(rng=random.Random(1))) == 10
t = tournament_create(owner=user, game_id="gamesup", name="race", bot_ids=[b.id for b in bots], games_per_pairing=2)
tournament_start(tournament=t, user=user)
print(t.id)
"""
)

# Claims until a ladder match comes (or nothing); notes how much of the owner's work still
# waited right after that claim: anything above zero was queued when the ladder match was taken.
CLAIMER = """
import json, signal
from tournaments.matches.models import Match
from tournaments.matches.claim import match_claim_next
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
print("{ready}", flush=True)
signal.sigwait([signal.SIGUSR1])
claims = 0
waiting_at_ladder = None
while (got := match_claim_next(worker="{name}")) is not None:
    claims += 1
    if Match.objects.get(id=got[0]).kind == Match.Kind.LADDER:
        waiting_at_ladder = Match.objects.filter(status="queued", owner__isnull=False).count()
        break
print(json.dumps([claims, waiting_at_ladder]))
"""
READY = "ready to claim"
ROUNDS = 3


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_a_worker_that_loses_a_race_never_takes_the_ladder_while_other_work_waits(
    live_processes: LiveFactory, round_: int
) -> None:
    procs = live_processes(tag=f"ladder-race{round_}", env={"CELERY_BROKER_URL": "memory://"})  # nothing is played
    tid = procs.shell(SETUP)
    assert tid > 0
    claimers = [
        procs.spawn(
            f"claimer{n}",
            [PYTHON, "manage.py", "shell", "-c", CLAIMER.format(ready=READY, name=f"w{n}")],
        )
        for n in range(2)
    ]

    def all_ready() -> bool:
        if early := [c.name for c in claimers if c.exited()]:
            raise AssertionError(f"{early} exited before the start: {[c.tail() for c in claimers]}")
        return all(READY in c.log() for c in claimers)

    wait_for(all_ready, 120, "every claimer to be ready")
    for claimer in claimers:
        claimer.signal(signal.SIGUSR1)
    for claimer in claimers:
        wait_for(claimer.exited, 120, f"{claimer.name} to finish")
    results = [json.loads([line for line in c.log().splitlines() if line.startswith("[")][-1]) for c in claimers]
    claims = sum(n for n, _ in results)
    assert claims >= 30 + 1, results  # C(6, 2) pairings x 2 games, then the ladder
    # None: that claimer took no ladder match (it may even have lost every round and handed its message
    # back to the dispatcher, matches/claim.py); a number: the owner's matches queued as it took one.
    assert all(waiting in (None, 0) for _, waiting in results), f"a ladder match taken while work waited: {results}"
