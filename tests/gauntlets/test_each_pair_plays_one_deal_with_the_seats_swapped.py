"""Each pair of a gauntlet's games shares one seed, seats swapped, also when the fill's batches split a pair."""

from __future__ import annotations

from typing import Any

from django.test import override_settings

from tests.gauntlets.conftest import seats_of
from tournaments.competitions.plans import gauntlet_plan
from tournaments.competitions.services.filling import tournament_matches_fill
from tournaments.competitions.services.tournaments import tournament_create, tournament_start


def test_the_plan_pairs_every_opponent_and_balances_an_odd_last_game() -> None:
    assert gauntlet_plan(field=2, games_per_pairing=2) == [(0, 1), (1, 0), (0, 2), (2, 0)]
    # Three games: a pair each, then one more each, the challenger starting against every other opponent.
    assert gauntlet_plan(field=3, games_per_pairing=3) == [
        (0, 1), (1, 0), (0, 2), (2, 0), (0, 3), (3, 0), (0, 1), (2, 0), (0, 3),
    ]  # fmt: skip


@override_settings(ARBITER_TOURNAMENT_INLINE_MATCHES=3)
def test_pairs_share_a_seed_across_the_fills_batches(user: Any, make_bot: Any) -> None:
    challenger, *field = (make_bot(owner="new") for _ in range(4))
    draft = tournament_create(
        owner=user,
        game_id="gamesup",
        name="g",
        format="gauntlet",
        challenger_id=challenger.id,
        bot_ids=[b.id for b in field],
    )
    tournament = tournament_start(tournament=draft, user=user)
    assert tournament.planned == 6 and not tournament.matches.exists()  # over the inline size: the task fills it
    assert tournament_matches_fill(tournament_id=tournament.id) == 6  # batches 0-2 and 3-5: pair 2-3 is split
    games = seats_of(tournament)
    versions = [v for b in field for v in b.versions.values_list("id", flat=True)]
    c = tournament.challenger_id
    assert [g[1] for g in games] == [(c, versions[0]), (versions[0], c), (c, versions[1]), (versions[1], c),
                                     (c, versions[2]), (versions[2], c)]  # fmt: skip
    seeds = [g[2] for g in games]
    assert seeds[0] == seeds[1] and seeds[2] == seeds[3] and seeds[4] == seeds[5]
    assert len({seeds[0], seeds[2], seeds[4]}) == 3
