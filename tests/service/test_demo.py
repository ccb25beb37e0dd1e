"""The demo command: what `make start` loads for a newcomer."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from engines import all_engines
from tournaments.bots.models import Bot
from tournaments.competitions.models import Ladder, Tournament
from tournaments.matches.models import Match
from tournaments.ratings.pools import pool_key_read

pytestmark = pytest.mark.django_db(transaction=True)


def test_demo_starts_a_round_robin_per_rating_pool_and_is_idempotent() -> None:
    call_command("demo", verbosity=0)
    users = get_user_model().objects
    assert users.get(username="admin").is_staff
    demo = users.get(username="demo")
    assert demo.check_password("demo")

    keys = [pool_key_read(p) for p in Tournament.objects.values_list("rating_pool", flat=True)]
    # The demo user's round robins are rated in the demo user's own pools.
    assert {k.organiser_id for k in keys} == {demo.id}
    pools = {k.base for k in keys}
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
    assert Ladder.objects.count() == len(all_engines())


def test_the_reference_bots_play_every_games_ladder_each_on_an_account_of_its_own() -> None:
    call_command("demo", verbosity=0)
    for engine in all_engines():
        ladder = Ladder.objects.get(game_id=engine.id)
        # The pool the game's leaderboard shows first.
        assert (ladder.pool, ladder.enabled) == (engine.rating_pool(), True), engine.id
        public = Bot.objects.filter(game_id=engine.id, visibility=Bot.Visibility.PUBLIC, active=True)
        owners = dict(public.values_list("name", "owner__username"))
        assert owners == {"random": "ref-random", "greedy": "ref-greedy", "search": "ref-search"}, engine.id
    assert not get_user_model().objects.get(username="ref-search").has_usable_password()
