"""A renewal that arrives after its own worker recorded the match is not a lost lease.

The worker's heartbeat thread (``matches.heartbeat``) may renew a lease just
after the match was recorded under that attempt and before the worker lets
the lease go; the refused renewal must end the lease quietly.  A match taken
over by another attempt is still reported as "lost its lease".
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.service.conftest import outcome_for
from tests.waiting import wait_for
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.claim import match_claim
from tournaments.matches.heartbeat import heartbeat
from tournaments.matches.models import Match
from tournaments.matches.record import match_record_error, match_record_result

pytestmark = pytest.mark.django_db(transaction=True)

LOST = "lost its lease"


@pytest.fixture
def claimed(user: Any, other: Any, make_bot: Any, settings: Any) -> tuple[Match, int]:
    """A running match of a rated duel and its attempt, with a heartbeat that renews at once."""
    settings.ARBITER_HEARTBEAT_S = 0.05
    settings.ARBITER_CANCEL_CHECK_S = 0.05
    bots = [make_bot(), make_bot(owner=other)]
    tournament = tournament_create(owner=user, game_id="gamesup", name="t", bot_ids=[b.id for b in bots])
    match = tournament_start(tournament=tournament, user=user).matches.order_by("index").first()
    attempt = match_claim(match_id=match.id, worker="w")
    assert attempt is not None
    return match, attempt


def test_a_renewal_after_the_result_committed_ends_the_lease_quietly(
    claimed: tuple[Match, int], caplog: pytest.LogCaptureFixture
) -> None:
    match, attempt = claimed
    lease = heartbeat.hold(match_id=match.id, attempt=attempt)
    with caplog.at_level(logging.WARNING, logger="tournaments"):
        # Recorded while the lease is still held: the heartbeat's next renewal is refused.
        assert match_record_result(match_id=match.id, attempt=attempt, record=outcome_for(match, [1, 2]))
        # The heartbeat itself lets the lease go once it sees the match finished.
        wait_for(lease.released.is_set, 10, "the heartbeat to see the match recorded")
    assert Match.objects.get(id=match.id).status == "finished"
    assert not lease.cancelled.is_set()
    assert LOST not in caplog.text


def test_a_match_taken_over_by_another_attempt_is_a_lost_lease(
    claimed: tuple[Match, int], caplog: pytest.LogCaptureFixture
) -> None:
    match, attempt = claimed
    lease = heartbeat.hold(match_id=match.id, attempt=attempt)
    with caplog.at_level(logging.WARNING, logger="tournaments"):
        # What the sweeper does to a silent worker's match, then another worker claims it.
        assert match_record_error(match_id=match.id, attempt=attempt, reason="lease expired") == "queued"
        assert match_claim(match_id=match.id, worker="other") == attempt + 1
        wait_for(lambda: LOST in caplog.text, 10, "the heartbeat to report the lost lease")
    assert lease.released.is_set()
    heartbeat.release(lease)
