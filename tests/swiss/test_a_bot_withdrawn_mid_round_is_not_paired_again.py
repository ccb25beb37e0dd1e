"""A bot withdrawn in the middle of a Swiss: its unplayed game is cancelled, the next round is paired without it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rounds import first_round_played_but_one, tournament_started
from tournaments.bots.services import bot_deactivate
from tournaments.competitions.models import TournamentRound
from tournaments.matches.models import Match, MatchSeat

pytestmark = pytest.mark.django_db


def test_a_bot_withdrawn_mid_round_is_not_paired_again(user: Any, make_bot: Any, play: Any) -> None:
    bots = [make_bot() for _ in range(6)]
    tournament = tournament_started(owner=user, bots=bots, format="swiss", rounds=3, games_per_pairing=1)
    first = first_round_played_but_one(tournament=tournament, play=play)
    # The last match of round 1 is cancelled by the withdrawal; that ends the round, which pairs round 2.
    gone = MatchSeat.objects.filter(match=first, seat=0).values_list("bot_version__bot", flat=True).get()
    bot_deactivate(bot=next(b for b in bots if b.id == gone), user=user)
    assert Match.objects.get(pk=first.pk).status == Match.Status.CANCELLED

    second = TournamentRound.objects.get(tournament=tournament, number=2)
    assert second.size == 2 and second.bye is not None  # five left: two pairings and a bye
    playing = MatchSeat.objects.filter(match__tournament=tournament, match__index__gte=second.first_index).values_list(
        "bot_version__bot", flat=True
    )
    assert gone not in set(playing) and second.bye.bot_id != gone
