"""Claims under real contention on PostgreSQL: many processes, every match claimed exactly once."""

from __future__ import annotations

import json
import signal

import pytest

from tests.live import PYTHON
from tests.live.fixtures import LiveFactory
from tests.service.shells import owner_with_bots
from tests.waiting import wait_for

pytestmark = pytest.mark.services

SETUP = (
    owner_with_bots(username="racer", bots=10)
    + """
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
t = tournament_create(owner=user, game_id="gamesup", name="race", bot_ids=[b.id for b in bots], games_per_pairing=2)
tournament_start(tournament=t, user=user)
print(t.id)
"""
)

CLAIMER = """
import json, signal
from tournaments.matches.models import Match
from tournaments.matches.claim import match_claim
ids = list(Match.objects.filter(tournament_id={tid}).order_by("id").values_list("id", flat=True))
# Say so once ready, then wait for the signal that starts every claimer at once.
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
print("{ready}", flush=True)
signal.sigwait([signal.SIGUSR1])
won = [i for i in ids if match_claim(match_id=i, worker="{name}") is not None]
print(json.dumps(won))
"""
READY = "ready to claim"


def test_concurrent_claims_never_double_book(live_processes: LiveFactory) -> None:
    procs = live_processes(tag="race", env={"CELERY_BROKER_URL": "memory://"})  # nothing is played here
    tid = procs.shell(SETUP)
    claimers = [
        procs.spawn(
            f"claimer{n}", [PYTHON, "manage.py", "shell", "-c", CLAIMER.format(tid=tid, ready=READY, name=f"w{n}")]
        )
        for n in range(6)
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
    # Each prints the ids it won as its last JSON line (its log holds stderr too).
    won = [json.loads([line for line in c.log().splitlines() if line.startswith("[")][-1]) for c in claimers]
    claimed = [match for wins in won for match in wins]
    assert len(claimed) == 90  # C(10, 2) pairings x 2 games
    assert len(set(claimed)) == len(claimed), "a match was claimed twice"
    assert sum(1 for wins in won if wins) > 1, "no contention happened"
