"""A round whose end was committed without its next round (the recording process died) is planned by the sweep, once."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rounds import first_round_played_but_one, tournament_started
from tournaments.competitions.models import Tournament, TournamentRound
from tournaments.competitions.tasks import tournaments_rounds_advance
from tournaments.matches.models import Match

pytestmark = pytest.mark.django_db


def test_a_round_left_unplanned_is_planned_by_the_sweep_once(user: Any, make_bot: Any, play: Any) -> None:
    bots = [make_bot() for _ in range(6)]
    tournament = tournament_started(owner=user, bots=bots, format="swiss", rounds=2, games_per_pairing=1)
    first = first_round_played_but_one(tournament=tournament, play=play)
    assert TournamentRound.objects.filter(tournament=tournament).count() == 1
    # The last result committed without its hook, as if the recording process died right after.
    Match.objects.filter(pk=first.pk).update(status=Match.Status.FINISHED, attempt=1)
    assert Match.objects.filter(tournament=tournament).count() == 3

    assert tournaments_rounds_advance() == 1
    assert tournaments_rounds_advance() == 0
    assert list(TournamentRound.objects.filter(tournament=tournament).values_list("number", flat=True)) == [1, 2]
    assert Match.objects.filter(tournament=tournament).count() == 6
    tournament.refresh_from_db()
    assert (tournament.current_round, tournament.planned, tournament.status) == (2, 6, Tournament.Status.RUNNING)
