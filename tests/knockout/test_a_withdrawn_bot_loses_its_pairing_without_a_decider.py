"""A bot withdrawn mid-pairing loses that pairing at once: no decider, the other side goes through."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rounds import tournament_started
from tournaments.bots.services import bot_deactivate
from tournaments.competitions.models import Tournament
from tournaments.competitions.selectors.brackets import tournament_bracket
from tournaments.matches.models import Match

pytestmark = pytest.mark.django_db


def test_a_withdrawn_bot_loses_its_pairing_without_a_decider(user: Any, make_bot: Any, play: Any) -> None:
    bots = [make_bot() for _ in range(3)]
    tournament = tournament_started(owner=user, bots=bots, format=Tournament.Format.KNOCKOUT, games_per_pairing=2)
    seeds = list(tournament.entries.order_by("number").values_list("bot_version__bot_id", "bot_version_id"))
    # Seed 1 has the bye; seeds 2 and 3 play two games. The first is drawn, then seed 3 withdraws.
    first = Match.objects.get(tournament=tournament, index=0)
    assert play(first, [1, 1])
    bot_deactivate(bot=next(b for b in bots if b.id == seeds[2][0]), user=user)
    matches = Match.objects.filter(tournament=tournament)
    assert not matches.filter(status=Match.Status.QUEUED).exclude(index__gte=2).exists()
    nodes = {n["key"]: n for n in tournament_bracket(tournament=tournament)["nodes"]}
    assert nodes["W1-2"]["winner"]["bot_version"] == seeds[1][1]
    # The final, seed 1 against seed 2, is planned: no decider was added for the abandoned pairing.
    assert nodes["W2-1"]["status"] == "due" and len(nodes["W1-2"]["matches"]) == 2
