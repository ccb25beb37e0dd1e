"""The ratings' applier: each recorded match applied once, and the rebuild replaying the order of application.

Matches are applied in finish order, but two may commit out of that order;
the rebuild follows the order the live ratings saw (tournaments/ratings/applier.py).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.models import Match
from tournaments.ratings.applier import ratings_apply_all
from tournaments.ratings.models import RatingChange
from tournaments.ratings.rebuild import ratings_differences

pytestmark = pytest.mark.django_db


def _round_robin(user: Any, make_bot: Any) -> list[Match]:
    bots = [make_bot(owner="new") for _ in range(3)]
    tournament = tournament_create(owner=user, game_id="gamesup", name="t", bot_ids=[b.id for b in bots])
    return list(tournament_start(tournament=tournament, user=user).matches.order_by("index"))


def test_a_recorded_match_is_applied_once_however_often_the_applier_runs(user: Any, make_bot: Any, play: Any) -> None:
    first = _round_robin(user, make_bot)[0]
    assert play(first, [1, 2])
    first.refresh_from_db()
    # The pool was free: applied in the recording transaction.
    assert not first.rating_pending and RatingChange.objects.filter(match=first).count() == 2
    assert ratings_apply_all() == 0
    assert RatingChange.objects.filter(match=first).count() == 2


def test_the_rebuild_follows_the_order_of_application_not_of_finish(user: Any, make_bot: Any, play: Any) -> None:
    matches = _round_robin(user, make_bot)
    for match, ranks in zip(matches[:3], ([1, 2], [2, 1], [1, 2]), strict=True):
        assert play(match, ranks)
    # The first applied finished last: a commit that came after the others' application.
    latest = Match.objects.order_by("-finished_at").values_list("finished_at", flat=True).first()
    Match.objects.filter(id=matches[0].id).update(finished_at=latest + timedelta(seconds=1))
    differences, replay, _ = ratings_differences()
    assert replay.matches == 3
    assert differences == []
