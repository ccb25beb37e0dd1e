"""A tied pairing whose last game was committed without its hook (the recording process died) gets its decider
from the beat's sweep, once, in the same round."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rounds import tournament_started
from tournaments.competitions.models import Tournament, TournamentRound
from tournaments.competitions.tasks import tournaments_rounds_advance
from tournaments.matches.models import Match

pytestmark = pytest.mark.django_db


def test_a_decider_left_unplanned_is_added_by_the_sweep_once(user: Any, make_bot: Any, play: Any) -> None:
    bots = [make_bot() for _ in range(2)]
    tournament = tournament_started(owner=user, bots=bots, format="knockout", games_per_pairing=2)
    first, second = Match.objects.filter(tournament=tournament).order_by("index")
    assert play(first, [1, 1])  # drawn
    # The second game committed without its hook and without a result: level, so a decider is due.
    Match.objects.filter(pk=second.pk).update(status=Match.Status.FINISHED, attempt=1)
    assert Match.objects.filter(tournament=tournament).count() == 2

    assert tournaments_rounds_advance() == 1
    assert tournaments_rounds_advance() == 0
    assert list(TournamentRound.objects.filter(tournament=tournament).values_list("number", "size")) == [(1, 3)]
    decider = Match.objects.get(tournament=tournament, index=2)
    assert decider.status == Match.Status.QUEUED
    tournament.refresh_from_db()
    assert (tournament.current_round, tournament.planned, tournament.status) == (1, 3, Tournament.Status.RUNNING)
