"""The demo command: what `make start` loads for a newcomer."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from engines import all_engines
from tournaments.bots.models import Bot
from tournaments.competitions.models import Tournament
from tournaments.matches.models import Match

pytestmark = pytest.mark.django_db(transaction=True)


def test_demo_starts_a_round_robin_per_rating_pool_and_is_idempotent() -> None:
    call_command("demo", verbosity=0)
    users = get_user_model().objects
    assert users.get(username="admin").is_staff
    assert users.get(username="demo").check_password("demo")

    pools = set(Tournament.objects.values_list("rating_pool", flat=True))
    for engine in all_engines():
        assert Bot.objects.filter(game_id=engine.id, name="greedy").exists(), engine.id
        assert engine.rating_pool() in pools, engine.id
    # The variants that make separate rating pools get their own demo round robin.
    assert {"hexstacks:diabolical=true", "sequence:seats=3,teams=3,advanced=false"} <= pools
    assert "sequence:seats=4,teams=2,advanced=false" in pools
    assert set(Tournament.objects.values_list("status", flat=True)) == {Tournament.Status.RUNNING}
    matches = Match.objects.count()
    assert matches >= 2 * len(pools)

    call_command("demo", verbosity=0)
    assert Tournament.objects.count() == len(pools)
    assert Match.objects.count() == matches
