"""A round robin whose last match was recorded but whose finish check never ran is finished by the beat's sweep.

The record path leaves the check for after its commit when a cancel holds the
tournament's row; a process that dies right then leaves every match ended and
the tournament running.  ``tournaments_finish_overdue`` finishes it, once, and
leaves alone a tournament that still has matches to play.
"""

from __future__ import annotations

from typing import Any

import pytest

from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.competitions.tasks import tournaments_finish_overdue
from tournaments.matches.models import Match
from tournaments.matches.tally import tally_add

pytestmark = pytest.mark.django_db


def test_a_round_robin_whose_finish_was_lost_is_finished_by_the_sweep(user: Any, make_bot: Any, play: Any) -> None:
    bots = [make_bot() for _ in range(3)]
    tournament = tournament_create(
        owner=user, game_id="gamesup", name="rr", bot_ids=[b.id for b in bots], games_per_pairing=1
    )
    tournament_start(tournament=tournament, user=user)
    last, *rest = Match.objects.filter(tournament=tournament).order_by("-index")
    for match in rest:
        assert play(match, [1, 2])
    assert tournaments_finish_overdue() == 0, "a match is still to be played"

    # The last result and its count committed without the finish check, as if its process died right after.
    Match.objects.filter(pk=last.pk).update(status=Match.Status.FINISHED, attempt=1)
    tally_add(counts={tournament.pk: 1})
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING

    assert tournaments_finish_overdue() == 1
    assert tournaments_finish_overdue() == 0
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.finished is not None
