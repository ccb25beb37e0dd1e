"""One run_next message plays the queued matches back to back, for up to ARBITER_RUN_LOOP_S, then stops.

A message and its acknowledgement per match cost a broker round trip between
every two matches; the worker claims the next fair pick itself instead, and
the messages left over find nothing (or the next match) later.
"""

from __future__ import annotations

from typing import Any

from tests.service.test_tasks import needs_sandbox
from tournaments.competitions.models import Tournament
from tournaments.matches import tasks
from tournaments.matches.models import Match
from tournaments.ratings.rebuild import ratings_differences


@needs_sandbox
def test_one_message_plays_every_queued_match_and_each_counts_once(duel_of_three: Tournament, settings: Any) -> None:
    settings.ARBITER_RUN_LOOP_S = 600.0
    assert tasks.run_next() == "3 finished, 1 nothing queued"  # it went on until the queue was empty
    matches = list(duel_of_three.matches.values_list("status", "attempt"))
    assert matches == [(Match.Status.FINISHED, 1)] * 3
    duel_of_three.refresh_from_db()
    assert duel_of_three.status == Tournament.Status.FINISHED
    assert ratings_differences()[0] == []
    assert tasks.run_next() == "nothing queued"


@needs_sandbox
def test_without_a_loop_a_message_plays_one_match(duel_of_three: Tournament, settings: Any) -> None:
    settings.ARBITER_RUN_LOOP_S = 0.0
    assert tasks.run_next() == "finished"
    assert duel_of_three.matches.filter(status=Match.Status.QUEUED).count() == 2
