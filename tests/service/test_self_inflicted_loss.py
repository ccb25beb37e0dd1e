"""A bot that tries to die by its own CPU limit when it is losing gets a rated loss, not a re-run.

The whole path of a worker: the queued match is claimed, played by the real
referee with the uploaded bots in the real sandbox, and recorded.  The bot
lowers its own CPU-time limit on its first turn and spins: were the call
allowed, the kernel's SIGKILL would read as a kill from outside, the match
would be run again and, out of attempts, end ERRORED, never rated.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings as django_settings

from tests.referee.conftest import sandbox_runtime
from tests.referee.support import FIRST_UID, make_limits, require_sandbox
from tournaments.bots.services import bot_create
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches import tasks
from tournaments.matches.models import Match
from tournaments.ratings.models import Rating
from workers.sandbox.limits import SandboxLimits

# A single-file bot: on its first turn, a CPU limit one second above what it has used, then a spin.
LOWERS_ITS_LIMIT = b"""
import json, resource, sys, time
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif msg["type"] == "turn":
        used = int(time.process_time()) + 1
        try:
            resource.setrlimit(resource.RLIMIT_CPU, (used, used))
        except (OSError, ValueError):
            pass
        while True:
            pass
"""


@pytest.fixture
def sandbox(settings: Any) -> Iterator[SandboxLimits]:
    """The worker's sandbox on the referee tests' slot uids, with a private runtime directory."""
    for runtime in sandbox_runtime("arbiter-test-runtime-", FIRST_UID):
        limits = make_limits(runtime)
        require_sandbox(limits)
        settings.ARBITER_SANDBOX = limits
        yield limits


def test_a_bot_that_lowers_its_cpu_limit_gets_a_rated_loss(sandbox: SandboxLimits, make_bot: Any, user: Any) -> None:
    honest = make_bot(owner="new")
    cheat = bot_create(
        owner=user, game_id="gamesup", name="cheat", package=LOWERS_ITS_LIMIT, filename="cheat.py"
    ).bot  # fmt: skip
    tournament = tournament_create(
        owner=user,
        game_id="gamesup",
        name="t",
        bot_ids=[honest.id, cheat.id],
        games_per_pairing=1,
        move_ms=1000,
        game_ms=20_000,
        startup_ms=10_000,
    )
    tournament_start(tournament=tournament, user=user)
    assert tasks.run_next() == "finished"  # today: "queued", an outside kill to run again
    match = Match.objects.get(tournament=tournament)
    assert (match.status, match.attempt) == ("finished", 1)
    seats = {s.bot_version.bot_id: s for s in match.match_seats.select_related("bot_version")}
    assert (seats[cheat.id].status, seats[cheat.id].rank) == ("timeout", 2), match.result_reason
    assert (seats[honest.id].status, seats[honest.id].rank) == ("ok", 1)
    elo = {r.bot_version.bot_id: r for r in Rating.objects.filter(pool=tournament.rating_pool)}
    start = django_settings.ARBITER_ELO_START
    assert elo[cheat.id].losses == 1 and elo[cheat.id].elo < start < elo[honest.id].elo
