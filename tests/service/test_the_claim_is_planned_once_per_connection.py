"""The fair pick with its claim is planned once per worker connection, not for every match (PostgreSQL).

Planning it cost the shared database more than running it (tournaments/prepared.py).
A worker process claims a dozen matches on one connection; the server's own list of
that connection's prepared statements must hold the claim, run under a generic plan.
"""

from __future__ import annotations

import pytest

from tests.live.fixtures import LiveFactory
from tests.service.shells import owner_with_bots

pytestmark = pytest.mark.services

CLAIMS = 12

SHELL = (
    owner_with_bots(username="planner", bots=4)
    + f"""
import json
from django.db import connection
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.claim import match_claim_next
t = tournament_create(owner=user, game_id="gamesup", name="plans", bot_ids=[b.id for b in bots], games_per_pairing=2)
tournament_start(tournament=t, user=user)
claimed = [match_claim_next(worker="planner") for _ in range({CLAIMS})]
with connection.cursor() as cursor:
    cursor.execute("SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements")
    prepared = [[text, generic, custom] for text, generic, custom in cursor.fetchall()]
print(json.dumps({{"claimed": len({{c.match_id for c in claimed if c is not None}}), "prepared": prepared}}))
"""
)


def test_the_claim_is_prepared_and_runs_under_a_generic_plan(live_processes: LiveFactory) -> None:
    out = live_processes(tag="plans").shell(SHELL)
    assert out["claimed"] == CLAIMS  # 4 bots, 2 games a pairing: 12 matches, each claimed once
    claims = [p for p in out["prepared"] if "claimed AS (" in p[0] and "RECURSIVE owners" in p[0]]
    assert len(claims) == 1, out["prepared"]
    _, generic, custom = claims[0]
    # psycopg prepares it on its 5th run; the server plans the first five runs of the
    # prepared statement for their values, then keeps the generic plan.
    assert custom <= 5 and generic >= 1, claims[0]
