"""Round-robin plans: counts, seat and start balance, and the scheduling service."""

from __future__ import annotations

import itertools
import time
from collections import Counter
from typing import Any

import pytest

from tournaments.bots.models import BotVersion
from tournaments.competitions.models import Participant, Tournament
from tournaments.competitions.plans import circle_rounds, round_robin_plan
from tournaments.competitions.services.filling import tournament_matches_fill
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.models import Match, MatchSeat


@pytest.mark.parametrize("count", range(2, 12))
def test_circle_rounds_cover_every_pair_once(count: int) -> None:
    rounds = circle_rounds(count)
    pairs = [p for r in rounds for p in r]
    assert sorted(pairs) == list(itertools.combinations(range(count), 2))
    for round_ in rounds:  # nobody plays twice in one round
        players = [x for p in round_ for x in p]
        assert len(players) == len(set(players))


@pytest.mark.parametrize("count", range(2, 10))
@pytest.mark.parametrize("games", [1, 2, 3])
@pytest.mark.parametrize("legs", [1, 2])
def test_two_seat_balance(count: int, games: int, legs: int) -> None:
    plan = round_robin_plan(participants=count, teams=2, games_per_group=games, legs=legs)
    per_pair = games * legs
    assert len(plan) == count * (count - 1) // 2 * per_pair
    firsts_by_pair: Counter = Counter()
    games_by_pair: Counter = Counter()
    for first, second in plan:
        assert first != second
        pair = (min(first, second), max(first, second))
        games_by_pair[pair] += 1
        firsts_by_pair[(pair, first)] += 1
    assert set(games_by_pair.values()) == {per_pair}
    # Within a pairing each side has seat 0 equally often (off by one only when the count is odd).
    for pair in games_by_pair:
        a, b = firsts_by_pair[(pair, pair[0])], firsts_by_pair[(pair, pair[1])]
        assert abs(a - b) == per_pair % 2
    # Across the tournament every participant starts equally often (within one game).
    starts = Counter(first for first, _ in plan)
    values = [starts[p] for p in range(count)]
    assert max(values) - min(values) <= (1 if per_pair % 2 else 0)
    assert sum(values) == len(plan)


@pytest.mark.parametrize("count", [3, 4, 5, 6])
def test_three_team_groups_rotate_every_team(count: int) -> None:
    plan = round_robin_plan(participants=count, teams=3, games_per_group=3)
    groups = Counter(tuple(sorted(game)) for game in plan)
    assert sorted(groups) == list(itertools.combinations(range(count), 3))
    assert set(groups.values()) == {3}
    team_counts = Counter((p, t) for game in plan for t, p in enumerate(game))
    games_each = 3 * len([g for g in groups if 0 in g])
    for p in range(count):
        assert [team_counts[(p, t)] for t in range(3)] == [games_each // 3] * 3


def _start(user: Any, bots: list, **kwargs: Any) -> Tournament:
    tournament = tournament_create(owner=user, bot_ids=[b.id for b in bots], name="t", **kwargs)
    return tournament_start(tournament=tournament, user=user)


def test_schedule_two_seats(user: Any, make_bot: Any) -> None:
    bots = [make_bot() for _ in range(4)]
    tournament = _start(user, bots, game_id="gamesup", games_per_pairing=2, format="double")
    assert tournament.status == "running"
    assert Match.objects.filter(tournament=tournament).count() == 6 * 4
    assert MatchSeat.objects.filter(match__tournament=tournament).count() == 6 * 4 * 2
    seat0 = Counter(
        MatchSeat.objects.filter(match__tournament=tournament, seat=0).values_list("bot_version", flat=True)
    )
    assert set(seat0.values()) == {6}  # 3 opponents x 4 games, half of them first
    seeds = list(Match.objects.filter(tournament=tournament).order_by("index").values_list("seed", flat=True))
    # Secret draws (tests/service/test_seeds_unrelated.py): distinct, within a signed 64-bit column.
    assert len(set(seeds)) == len(seeds) and all(0 <= s < 2**63 for s in seeds)
    assert set(Match.objects.filter(tournament=tournament).values_list("status", flat=True)) == {"queued"}


def test_schedule_three_players_and_two_by_two_teams(user: Any, make_bot: Any) -> None:
    bots = [make_bot(game="sequence") for _ in range(4)]
    three = _start(user, bots, game_id="sequence", seats=3, games_per_pairing=3)
    assert Match.objects.filter(tournament=three).count() == 4 * 3  # C(4,3) groups x 3 games
    assert three.rating_pool.startswith("sequence:seats=3")
    teams = _start(user, bots, game_id="sequence", seats=4, options={"teams": 2}, games_per_pairing=2)
    assert Match.objects.filter(tournament=teams).count() == 6 * 2
    for match in Match.objects.filter(tournament=teams):
        seats = list(match.match_seats.order_by("seat"))
        # Seat i is on team i mod 2; one participant fills both seats of its team.
        assert [s.team for s in seats] == [0, 1, 0, 1]
        assert seats[0].bot_version_id == seats[2].bot_version_id != seats[1].bot_version_id == seats[3].bot_version_id


def test_hundred_bots_schedule_in_seconds(user: Any, make_bot: Any) -> None:
    first = make_bot()
    version = BotVersion.objects.get(bot=first)
    # Cheap clones of one version: the schedule only cares about distinct versions.
    from tournaments.bots.models import Bot

    bots = Bot.objects.bulk_create([Bot(owner=user, game_id="gamesup", name=f"clone{i}") for i in range(99)])
    BotVersion.objects.bulk_create(
        [BotVersion(bot=b, number=1, package=b"x", filename="a.py", checksum=version.checksum, size=1) for b in bots]
    )
    tournament = tournament_create(
        owner=user, game_id="gamesup", name="big", bot_ids=[first.id, *[b.id for b in bots]], games_per_pairing=1
    )
    assert Participant.objects.filter(tournament=tournament).count() == 100
    began = time.monotonic()
    started = tournament_start(tournament=tournament, user=user)
    # Too big for the request: it only counts the plan, and the fill task inserts it in batches.
    assert (started.planned, Match.objects.filter(tournament=tournament).count()) == (4950, 0)
    assert tournament_matches_fill(tournament_id=tournament.id) == 4950
    elapsed = time.monotonic() - began
    assert Match.objects.filter(tournament=tournament).count() == 4950
    assert MatchSeat.objects.filter(match__tournament=tournament).count() == 9900
    assert elapsed < 15, f"scheduling 4,950 matches took {elapsed:.1f} s"
