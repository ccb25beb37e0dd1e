"""The fair queue: who gets the next free worker (tournaments/matches/queue.py), claimed the way a worker claims."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_create, tournament_priority_set, tournament_start
from tournaments.errors import ForbiddenError
from tournaments.matches.claim import match_claim_next
from tournaments.matches.models import Match
from tournaments.matches.record import match_record_error

pytestmark = pytest.mark.django_db


def _round_robin(owner: Any, make_bot: Any, bots: int, **values: Any) -> Tournament:
    entrants = [make_bot(owner=owner) for _ in range(bots)]
    tournament = tournament_create(
        owner=owner, game_id="gamesup", name="t", bot_ids=[b.id for b in entrants], games_per_pairing=1, **values
    )
    return tournament_start(tournament=tournament, user=owner)


def _next(worker: str = "w") -> Match:
    claimed = match_claim_next(worker=worker)
    assert claimed is not None
    return Match.objects.get(id=claimed[0])


def test_one_match_of_one_user_goes_before_the_many_of_another(user: Any, make_bot: Any) -> None:
    ada = get_user_model().objects.create_user("ada")
    big = _round_robin(user, make_bot, bots=6)  # 15 matches
    assert _next().tournament_id == big.id  # the only one waiting
    small = _round_robin(ada, make_bot, bots=2)  # 1 match, behind 14
    assert _next().tournament_id == small.id  # ada was never served: she goes first
    # Then the one user left, in schedule order.
    rest = [_next() for _ in range(14)]
    assert [m.index for m in rest] == list(range(1, 15))
    assert match_claim_next(worker="w") is None


def test_owners_take_turns_and_tournaments_of_one_owner_interleave(user: Any, make_bot: Any) -> None:
    ada = get_user_model().objects.create_user("ada")
    first = _round_robin(user, make_bot, bots=3)  # 3 matches each
    second = _round_robin(user, make_bot, bots=3)
    hers = _round_robin(ada, make_bot, bots=3)
    order = [_next() for _ in range(9)]
    owners = [m.owner_id for m in order]
    # Nobody is served twice while the other waits.
    assert all(a != b for a, b in itertools.pairwise(owners[:6])), owners
    mine = [m for m in order if m.owner_id == user.id]
    assert [(m.tournament_id, m.index) for m in mine[:2]] in (
        [(first.id, 0), (second.id, 0)],
        [(second.id, 0), (first.id, 0)],
    )
    assert {m.tournament_id for m in order} == {first.id, second.id, hers.id}


def test_a_lost_match_and_a_raised_tournament_jump_the_queue(user: Any, make_bot: Any) -> None:
    ada = get_user_model().objects.create_user("ada")
    plain = _round_robin(user, make_bot, bots=4)
    lost = _next("dies")
    assert match_record_error(match_id=lost.id, attempt=1, reason="infrastructure: worker lost") == "queued"
    urgent = _round_robin(ada, make_bot, bots=2)
    staff = get_user_model().objects.create_user("staff", is_staff=True)
    with pytest.raises(ForbiddenError):
        tournament_priority_set(tournament=urgent, user=ada, priority=5)
    tournament_priority_set(tournament=urgent, user=staff, priority=5)
    assert _next().id == urgent.matches.get().id  # raised first
    again = _next()
    assert (again.id, again.attempt) == (lost.id, 2)  # then the lost match, before the rest
    assert _next().tournament_id == plain.id


def test_the_ladder_runs_only_when_nobody_else_waits(user: Any, make_bot: Any) -> None:
    ladder_match = _round_robin(user, make_bot, bots=2).matches.get()
    Match.objects.filter(pk=ladder_match.pk).update(owner=None, kind=Match.Kind.LADDER, tournament=None)
    _round_robin(user, make_bot, bots=3)
    kinds = [_next().kind for _ in range(4)]
    assert kinds == ["tournament"] * 3 + ["ladder"]


def test_staff_raise_a_tournament_in_the_admin(user: Any, make_bot: Any, client: Any) -> None:
    tournament = _round_robin(user, make_bot, bots=3)
    boss = get_user_model().objects.create_superuser("boss", password="pw")
    client.force_login(boss)
    page = client.get(f"/admin/competitions/tournament/{tournament.id}/change/")
    assert page.status_code == 200 and b'name="priority"' in page.content
    entries = tournament.entries.count()
    management = {"entries-TOTAL_FORMS": entries, "entries-INITIAL_FORMS": entries, "entries-MAX_NUM_FORMS": 1000}
    saved = client.post(
        f"/admin/competitions/tournament/{tournament.id}/change/", {"name": "renamed", "priority": "7", **management}
    )
    assert saved.status_code == 302, saved.content[:2000]
    tournament.refresh_from_db()
    assert (tournament.name, tournament.priority) == ("renamed", 7)
    assert set(tournament.matches.values_list("priority", flat=True)) == {7}
