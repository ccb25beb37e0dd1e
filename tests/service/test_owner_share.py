"""A share of the slots per owner (tournaments/matches/queue.py), claimed the way a worker claims.

The slots are the matches running plus the one being claimed; an owner
already running ``max(1, floor(ARBITER_OWNER_SHARE x slots))`` is passed over
while an owner under the share waits.  Matches claimed here are left running,
as on workers that are still playing them.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from tests.service.test_runtimes import _exotic
from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.claim import match_claim_next
from tournaments.matches.models import Match

pytestmark = pytest.mark.django_db


def _round_robin(owner: Any, make_bot: Any, bots: int) -> Tournament:
    entrants = [make_bot(owner=owner) for _ in range(bots)]
    tournament = tournament_create(
        owner=owner, game_id="gamesup", name="t", bot_ids=[b.id for b in entrants], games_per_pairing=1
    )
    return tournament_start(tournament=tournament, user=owner)


def _owner_of_next() -> int | None:
    claimed = match_claim_next(worker="w")
    assert claimed is not None
    return Match.objects.values_list("owner_id", flat=True).get(id=claimed[0])


def _finish(owner: Any, count: int) -> None:
    """``count`` of the owner's (a user or an id) running matches end (their slots come free)."""
    ids = Match.objects.filter(owner=owner, status=Match.Status.RUNNING).order_by("id").values_list("id", flat=True)
    Match.objects.filter(id__in=list(ids[:count])).update(status=Match.Status.FINISHED)


def test_an_owner_alone_in_the_queue_takes_every_slot(user: Any, make_bot: Any) -> None:
    _round_robin(user, make_bot, bots=5)  # 10 matches
    assert [_owner_of_next() for _ in range(8)] == [user.id] * 8


def test_an_owner_holding_their_share_is_passed_over_while_another_waits(user: Any, make_bot: Any) -> None:
    ada = get_user_model().objects.create_user("ada")
    _round_robin(user, make_bot, bots=5)  # 10 slow matches
    assert [_owner_of_next() for _ in range(4)] == [user.id] * 4  # alone: all four slots
    _round_robin(ada, make_bot, bots=3)  # 3 short matches arrive
    _finish(user, 1)  # a slot comes free: 3 running + this one = 4 slots, a share of 2
    assert _owner_of_next() == ada.id
    _finish(ada, 1)  # ada's short match ends; the slot would go round to the owner served longest ago
    assert _owner_of_next() == ada.id, "the owner over the share took a slot while another waited"
    _finish(ada, 1)
    assert _owner_of_next() == ada.id
    # Nobody else waits: the owner over the share takes the free slots again.
    _finish(ada, 1)
    assert [_owner_of_next() for _ in range(2)] == [user.id] * 2


def test_two_owners_under_their_share_take_turns_and_settle_at_half_each(user: Any, make_bot: Any) -> None:
    ada = get_user_model().objects.create_user("ada")
    _round_robin(user, make_bot, bots=6)
    _round_robin(ada, make_bot, bots=6)
    owners = [_owner_of_next() for _ in range(8)]
    assert owners.count(user.id) == owners.count(ada.id) == 4, owners
    # A match of the one served last ends: the slot goes back to her, not to the other owner
    # (served longer ago, but holding half of the 8 slots already).
    last = owners[-1]
    _finish(last, 1)
    assert _owner_of_next() == last
    _finish(last, 1)
    assert _owner_of_next() == last


def test_the_ladder_waiting_does_not_hold_back_an_owner_over_the_share(user: Any, make_bot: Any) -> None:
    ladder = _round_robin(user, make_bot, bots=2).matches.get()
    Match.objects.filter(pk=ladder.pk).update(owner=None, kind=Match.Kind.LADDER, tournament=None)
    _round_robin(user, make_bot, bots=4)  # 6 matches
    assert [_owner_of_next() for _ in range(6)] == [user.id] * 6
    assert _owner_of_next() is None  # then the ladder, once nobody else waits


def test_a_worker_that_can_run_none_of_the_waiting_owners_matches_takes_a_held_back_one(
    user: Any, make_bot: Any
) -> None:
    ada = get_user_model().objects.create_user("ada")
    _round_robin(user, make_bot, bots=5)
    assert [_owner_of_next() for _ in range(4)] == [user.id] * 4
    # Ada waits with more matches than a worker looks at in its rounds, each needing a runtime
    # this worker lacks: the slot is not left idle for her, it goes to the owner at the share.
    exotic = tournament_create(
        owner=ada, game_id="gamesup", name="x", bot_ids=[_exotic(ada).id, make_bot(owner=ada).id], games_per_pairing=25
    )
    tournament_start(tournament=exotic, user=ada)
    _finish(user, 1)
    assert _owner_of_next() == user.id
    assert not Match.objects.filter(owner=ada).exclude(status=Match.Status.QUEUED).exists()


def test_a_share_of_one_sets_no_limit(user: Any, make_bot: Any, settings: Any) -> None:
    settings.ARBITER_OWNER_SHARE = 1.0
    ada = get_user_model().objects.create_user("ada")
    _round_robin(user, make_bot, bots=5)
    assert [_owner_of_next() for _ in range(4)] == [user.id] * 4
    _round_robin(ada, make_bot, bots=3)
    _finish(user, 1)
    assert _owner_of_next() == ada.id  # never served: first, as before
    _finish(ada, 1)
    assert _owner_of_next() == user.id  # then whoever was served longest ago, whatever they hold
