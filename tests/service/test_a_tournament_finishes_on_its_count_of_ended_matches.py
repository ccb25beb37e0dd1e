"""A tournament is finished by the count of its ended matches, which every way a match ends keeps exact.

Recording no longer locks the tournament's row: it adds one to the
tournament's count (``matches.tally``) as its last statement and the
competition compares the count with the plan.  The count must equal the
matches that are finished, errored or cancelled after results, errors for
good, errored matches queued again and cancels, or a tournament would never
finish (or finish early).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test.utils import override_settings

from tests.service.conftest import outcome_for
from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_cancel, tournament_create, tournament_start
from tournaments.matches.claim import match_claim
from tournaments.matches.life import matches_cancel
from tournaments.matches.models import Match, TournamentTally
from tournaments.matches.record import match_record_error, match_record_result, matches_requeue_errored
from tournaments.matches.tally import ENDED

pytestmark = pytest.mark.django_db


def _tournament(user: Any, other: Any, make_bot: Any) -> Tournament:
    bots = [make_bot(), make_bot(owner=other)]
    tournament = tournament_create(owner=user, game_id="gamesup", name="t", bot_ids=[b.id for b in bots],
                                   games_per_pairing=2)  # fmt: skip
    return tournament_start(tournament=tournament, user=user)


def _exact(tournament: Tournament) -> int:
    """The tournament's count, checked against its matches."""
    counted = TournamentTally.objects.filter(tournament=tournament).values_list("ended", flat=True).first() or 0
    assert counted == tournament.matches.filter(status__in=ENDED).count()
    return counted


def _play(match: Match) -> None:
    attempt = match_claim(match_id=match.id, worker="w")
    assert attempt is not None
    assert match_record_result(match_id=match.id, attempt=attempt, record=outcome_for(match, [1, 2]))


@override_settings(ARBITER_MATCH_MAX_ATTEMPTS=1)
def test_results_errors_and_reruns_keep_the_count_and_the_last_end_finishes(
    user: Any, other: Any, make_bot: Any
) -> None:
    tournament = _tournament(user, other, make_bot)
    first, second = tournament.matches.order_by("index")
    _play(first)
    assert _exact(tournament) == 1
    attempt = match_claim(match_id=second.id, worker="w")
    assert attempt is not None
    assert match_record_error(match_id=second.id, attempt=attempt, reason="lost") == Match.Status.ERRORED
    assert _exact(tournament) == 2
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED  # every match ended: the errored one too

    assert matches_requeue_errored(tournament_id=tournament.id) == 1
    assert _exact(tournament) == 1
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    _play(Match.objects.get(id=second.id))
    assert _exact(tournament) == 2
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED


def test_a_cancel_counts_only_what_it_cancelled_and_the_rest_still_finishes(
    user: Any, other: Any, make_bot: Any
) -> None:
    tournament = _tournament(user, other, make_bot)
    first, second = tournament.matches.order_by("index")
    _play(first)
    # Cancelling both (the finished one stays finished) counts one.
    assert matches_cancel(matches=Match.objects.filter(id__in=[first.id, second.id])) == 1
    assert _exact(tournament) == 2

    again = _tournament(user, other, make_bot)
    _play(again.matches.order_by("index").first())
    tournament_cancel(tournament=again, user=user)
    assert _exact(again) == 2
    again.refresh_from_db()
    assert again.status == Tournament.Status.CANCELLED  # not finished by the count on the way


def test_the_last_match_of_a_running_tournament_finishes_it_and_not_before(
    user: Any, other: Any, make_bot: Any
) -> None:
    tournament = _tournament(user, other, make_bot)
    matches = list(tournament.matches.order_by("index"))
    for match in matches[:-1]:
        _play(match)
        tournament.refresh_from_db()
        assert tournament.status == Tournament.Status.RUNNING
    _play(matches[-1])
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED and tournament.finished is not None
    assert _exact(tournament) == len(matches)
