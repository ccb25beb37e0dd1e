"""The ladder's choice of who plays: a long simulated run of the picker, then top-ups in the database."""

from __future__ import annotations

import itertools
import random
import statistics
from typing import Any

import pytest

from engines import get_engine
from tests.service.conftest import RANDOM_BOT
from tournaments.bots.services import bot_version_create
from tournaments.competitions.models import Ladder
from tournaments.competitions.selectors.ladders import LadderCandidate, ladder_candidates
from tournaments.competitions.services.ladders import LEVEL_SLACK, ladder_pick, ladder_save, ladders_top_up
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.errors import ServiceError
from tournaments.matches.models import Match, MatchSeat
from tournaments.ratings.models import Rating

# The spread of recent game counts the ladder promises once everyone has caught up.
SPREAD = LEVEL_SLACK + 1


def _play_picks(cands: list[LadderCandidate], teams: int, picks: int, rng: random.Random) -> list[list[int]]:
    by_id = {c.version_id: c for c in cands}
    lineups = []
    for _ in range(picks):
        lineup = ladder_pick(candidates=cands, teams=teams, rng=rng)
        assert lineup is not None and len(set(lineup)) == teams
        for v in lineup:
            by_id[v].recent += 1
            by_id[v].total += 1
            by_id[v].last_opponents = frozenset(set(lineup) - {v})
        lineups.append(lineup)
    return lineups


@pytest.mark.parametrize(("teams", "bots"), [(2, 3), (2, 12), (2, 40), (3, 7), (4, 9)])
def test_long_run_keeps_counts_level_and_serves_a_new_bot_first(teams: int, bots: int) -> None:
    rng = random.Random(teams * 100 + bots)
    cands = [LadderCandidate(version_id=i, elo=rng.gauss(1500, 300)) for i in range(bots)]
    by_id = {c.version_id: c for c in cands}
    for _ in range(3000):
        _play_picks(cands, teams, 1, rng)
        counts = [c.recent for c in cands]
        assert max(counts) - min(counts) <= SPREAD, counts

    # A new version arrives with no games: it plays in every match until it has caught up.
    newcomer = LadderCandidate(version_id=10_000, elo=1500.0)
    cands.append(newcomer)
    by_id[newcomer.version_id] = newcomer
    while newcomer.recent < min(c.recent for c in cands[:-1]):
        assert newcomer.version_id in _play_picks(cands, teams, 1, rng)[0]
    # ... while the others keep their own spread, and afterwards everyone is level again.
    for _ in range(500):
        _play_picks(cands, teams, 1, rng)
    counts = [c.recent for c in cands]
    assert max(counts) - min(counts) <= SPREAD, counts


def test_opponents_are_near_in_rating_and_rematches_are_avoided() -> None:
    rng = random.Random(7)
    cands = [LadderCandidate(version_id=i, elo=1000.0 + 50.0 * i) for i in range(21)]  # 1000 to 2000
    lineups = _play_picks(cands, 2, 4000, rng)
    elo = {c.version_id: c.elo for c in cands}
    chosen_gap = statistics.mean(abs(elo[a] - elo[b]) for a, b in lineups)
    any_gap = statistics.mean(abs(a.elo - b.elo) for a in cands for b in cands if a is not b)
    # Random pairing would average ~367 points apart; the ladder pairs much closer.
    assert chosen_gap < any_gap / 2, (chosen_gap, any_gap)
    # Nobody meets the opponent of its previous match right away.
    last: dict[int, set[int]] = {}
    rematches = 0
    for lineup in lineups:
        for v in lineup:
            if last.get(v) == set(lineup) - {v}:
                rematches += 1
        for v in lineup:
            last[v] = set(lineup) - {v}
    # The picker only guarantees it for the first pick; the opponent's own last match can repeat rarely.
    assert rematches < len(lineups) * 0.05, rematches
    first_pick_rematch = sum(
        1 for prev, cur in itertools.pairwise(lineups) if set(prev) == set(cur)
    )  # back-to-back identical pairing
    assert first_pick_rematch == 0


def test_one_owners_bots_are_not_paired_while_anyone_else_can_play() -> None:
    rng = random.Random(7)
    # Owner 1 has five bots, owner 2 one: every game must be owner 2's bot against one of owner 1's.
    cands = [LadderCandidate(version_id=i, elo=1500.0, owner=1) for i in range(5)]
    cands.append(LadderCandidate(version_id=99, elo=1500.0, owner=2))
    for _ in range(200):
        lineup = ladder_pick(candidates=cands, teams=2, rng=rng)
        assert lineup is not None and 99 in lineup, lineup
    only_one_owner = [LadderCandidate(version_id=i, elo=1500.0, owner=1) for i in range(2)]
    assert sorted(ladder_pick(candidates=only_one_owner, teams=2, rng=rng) or []) == [0, 1]  # still a game


def test_too_few_bots_means_no_match() -> None:
    rng = random.Random(1)
    assert ladder_pick(candidates=[LadderCandidate(version_id=1, elo=1500.0)], teams=2, rng=rng) is None
    cands = [LadderCandidate(version_id=i, elo=1500.0) for i in range(3)]
    assert ladder_pick(candidates=cands, teams=4, rng=rng) is None


# -- in the database -------------------------------------------------------------------------


def _finish_all_queued(play: Any) -> None:
    for match in Match.objects.filter(kind="ladder", status="queued"):
        seats = list(MatchSeat.objects.filter(match=match).order_by("seat"))
        play(match, [1, 2] if seats[0].bot_version_id < seats[1].bot_version_id else [2, 1])


@pytest.mark.django_db
@pytest.mark.usefixtures("games")
def test_top_up_in_the_database(user: Any, make_bot: Any, play: Any) -> None:
    bots = [make_bot(owner="new") for _ in range(5)]
    ladder = ladder_save(ladder=Ladder(game_id="gamesup", seats=2, queued_target=3, move_ms=500))
    pool = get_engine("gamesup").rating_pool({}, 2)
    assert ladder.pool == pool  # the game's default public pool
    with pytest.raises(ServiceError):
        ladder_save(ladder=Ladder(game_id="gamesup", seats=2))  # one ladder per pool

    created = ladders_top_up(rng=random.Random(1))
    assert len(created) == 3
    assert ladders_top_up(rng=random.Random(2)) == []  # already at its target
    matches = Match.objects.filter(id__in=created)
    assert {(m.kind, m.rating_pool, m.rated, m.move_ms, m.tournament_id) for m in matches} == {
        ("ladder", pool, True, 500, None)
    }

    # Tournament work comes first: while any of it is queued, the ladder adds nothing.
    _finish_all_queued(play)
    tournament = tournament_create(owner=user, game_id="gamesup", name="t", bot_ids=[b.id for b in bots[:2]])
    tournament_start(tournament=tournament, user=user)
    assert ladders_top_up() == []
    for match in tournament.matches.all():
        play(match, [1, 2])
    assert len(ladders_top_up()) == 3

    # A long run through the database: everyone keeps playing, counts stay level.
    for round_ in range(40):
        _finish_all_queued(play)
        ladders_top_up(rng=random.Random(round_))
    finished = Match.objects.filter(kind="ladder", status="finished").count()
    assert finished >= 120
    counts = [c.recent for c in ladder_candidates(ladder=ladder, since=ladder.created)]
    assert min(counts) > 0 and max(counts) - min(counts) <= SPREAD, counts
    # Ladder games are rated in the ladder's public pool; the user's tournament, in the user's own pool.
    rated = dict(Rating.objects.filter(pool=pool).values_list("bot_version_id", "games"))
    assert sum(rated.values()) == 2 * finished
    assert Rating.objects.filter(pool=tournament.rating_pool).count() == 2 and tournament.rating_pool != pool

    # A new version gets the very next games.
    _finish_all_queued(play)
    fresh = bot_version_create(
        bot=bots[0], user=bots[0].owner, package=RANDOM_BOT + b"# v2\n", filename="random_bot.py"
    )
    created = ladders_top_up(rng=random.Random(99))
    assert len(created) == 3
    for match_id in created:
        assert MatchSeat.objects.filter(match_id=match_id, bot_version=fresh).exists()
    # The old version is no longer on the ladder.
    old = bots[0].versions.get(number=1).id
    assert old not in {c.version_id for c in ladder_candidates(ladder=ladder, since=ladder.created)}

    # Disabled: nothing more.
    _finish_all_queued(play)
    ladder.enabled = False
    ladder_save(ladder=ladder)
    assert ladders_top_up() == []
