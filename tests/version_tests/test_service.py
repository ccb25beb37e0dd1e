"""The version-test service: pairs, counts and LLR against the SPRT statistics, early stops, the cap, validation."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.version_tests.conftest import candidate_ranks, queued
from tournaments.bots.services import bot_version_create
from tournaments.competitions.models import VersionTest, VersionTestMatch
from tournaments.competitions.services.version_tests import (
    version_test_advance,
    version_test_cancel,
    version_test_create,
)
from tournaments.errors import ForbiddenError, NotFoundError, ServiceError
from tournaments.matches.claim import match_claim
from tournaments.matches.models import Match, MatchSeat
from tournaments.matches.record import match_record_error
from tournaments.ratings.stats import Sprt, bounds, counts


def _create(user: Any, bot: Any, **kwargs: Any) -> VersionTest:
    kwargs.setdefault("baseline_number", 1)
    return version_test_create(user=user, bot_id=bot.id, **kwargs)


def test_pairs_share_a_seed_with_seats_swapped(user: Any, two_versions: Any) -> None:
    test = _create(user, two_versions, pairs_in_flight=3)
    assert (test.candidate.number, test.baseline.number, test.status) == (2, 1, "running")
    assert (test.lower, test.upper) == bounds(0.05, 0.05)
    links = list(VersionTestMatch.objects.filter(test=test).select_related("match").order_by("pair", "game"))
    assert [(link.pair, link.game) for link in links] == [(p, g) for p in range(3) for g in (0, 1)]
    seeds = []
    for pair in range(3):
        first, second = (link.match for link in links if link.pair == pair)
        for match in (first, second):
            assert (match.kind, match.rated, match.tournament_id) == ("version_test", False, None)
            assert match.status == "queued"
        assert first.seed == second.seed
        seeds.append(first.seed)
        seat_of = {
            m.id: list(MatchSeat.objects.filter(match=m).order_by("seat").values_list("bot_version_id", flat=True))
            for m in (first, second)
        }
        assert seat_of[first.id] == [test.candidate_id, test.baseline_id]
        assert seat_of[second.id] == [test.baseline_id, test.candidate_id]
    assert len(set(seeds)) == 3


# The candidate's two scores in each pair, in the order the pairs are played: every
# pentanomial cell is used, and the LLR stays between the bounds all along.
PAIRS = [(1, 0), (0.5, 0.5), (1, 1), (0, 0), (1, 0.5), (0, 0.5), (0.5, 1), (0, 1), (1, 0), (0.5, 0)] * 2


def test_counts_and_llr_follow_tournaments_stats(user: Any, two_versions: Any, play_score: Any) -> None:
    test = _create(user, two_versions, pairs_in_flight=len(PAIRS), max_games=2 * len(PAIRS), elo1=10)
    sprt = Sprt(elo0=0, elo1=10, alpha=0.05, beta=0.05, max_games=2 * len(PAIRS))
    links = {(x.pair, x.game): x.match for x in VersionTestMatch.objects.filter(test=test).select_related("match")}
    # Game 0 of every pair first: a pair counts only once both of its games are done.
    for pair, scores in enumerate(PAIRS):
        play_score(links[(pair, 0)], test, scores[0])
    test.refresh_from_db()
    assert (test.games, test.pentanomial, test.llr) == (0, [0, 0, 0, 0, 0], 0.0)
    for pair, scores in enumerate(PAIRS):
        play_score(links[(pair, 1)], test, scores[1])
        test.refresh_from_db()
        expected = sprt.status(PAIRS[: pair + 1])
        want = ("inconclusive", "inconclusive") if pair == len(PAIRS) - 1 else ("running", "continue")
        assert (test.status, expected.decision) == want
        assert (test.wins, test.draws, test.losses) == (
            expected.counts.wins,
            expected.counts.draws,
            expected.counts.losses,
        )
        assert test.pentanomial == list(expected.counts.pentanomial)
        assert math.isclose(test.llr, expected.llr, rel_tol=1e-12, abs_tol=1e-12)
        if pair == 10:
            # Idempotent: recomputed from the matches, not incremented.
            before = (test.wins, test.draws, test.losses, list(test.pentanomial), test.llr, test.status)
            again = version_test_advance(test_id=test.id)
            assert (again.wins, again.draws, again.losses, again.pentanomial, again.llr, again.status) == before
    # The cap (20 pairs) is reached with the LLR between the bounds: every cell of the pentanomial is used.
    assert test.pentanomial == list(counts(PAIRS).pentanomial) and all(test.pentanomial)


@pytest.mark.parametrize("score,status", [(1, "h1"), (0, "h0")])
def test_a_decision_stops_the_test_and_cancels_queued_games(
    user: Any, two_versions: Any, play_score: Any, play: Any, score: float, status: str
) -> None:
    # A perfect (or perfectly bad) record decides a [0, 200] test at the first look allowed to (10 pairs);
    # at [0, 10] each 2-0 pair adds only ln(s1/s0) to the exact LLR, and 104 pairs would be needed.
    test = _create(user, two_versions, pairs_in_flight=4, max_games=400, elo1=200)
    late = None
    played = 0
    while True:
        test.refresh_from_db()
        if test.status != "running":
            break
        waiting = queued(test)
        # Never more than four pairs queued or running: the test cannot run far ahead of the LLR.
        in_play = Match.objects.filter(version_test_link__test=test, status__in=["queued", "running"]).count()
        assert in_play <= 8
        if late is None and played == 6:
            late = waiting[-1]  # claimed now, recorded after the decision
            late_attempt = match_claim(match_id=late.id, worker="slow")
            continue
        play_score(waiting[0], test, score)
        played += 1
    assert test.status == status and test.finished is not None
    sprt = Sprt(elo1=200, max_games=400)
    assert test.pairs == sprt.min_pairs  # the first look allowed to decide does
    expected = sprt.status([(score, score)] * test.pairs)
    assert math.isclose(test.llr, expected.llr) and (test.llr >= test.upper if score else test.llr <= test.lower)
    mine = Match.objects.filter(version_test_link__test=test)
    assert not mine.filter(status="queued").exists()
    assert mine.filter(status="cancelled").count() >= 2
    assert mine.count() <= 2 * (test.pairs + 4)
    # A game that was running at the decision is cancelled once the decision commits (never, inside
    # this test's transaction); a result of it that lands first changes nothing.
    from tests.service.conftest import outcome_for
    from tournaments.matches.record import match_record_result

    frozen = (test.wins, test.losses, list(test.pentanomial), test.llr)
    assert match_record_result(
        match_id=late.id, attempt=late_attempt, record=outcome_for(late, candidate_ranks(late, test, 1 - score))
    )
    test.refresh_from_db()
    assert (test.wins, test.losses, list(test.pentanomial), test.llr) == frozen and test.status == status


def test_the_cap_ends_inconclusive(user: Any, two_versions: Any, play_score: Any) -> None:
    test = _create(user, two_versions, pairs_in_flight=2, max_games=8)
    while waiting := queued(test):
        play_score(waiting[0], test, 0.5)
    test.refresh_from_db()
    assert (test.status, test.games, test.pentanomial) == ("inconclusive", 8, [0, 0, 4, 0, 0])
    assert Match.objects.filter(version_test_link__test=test).count() == 8


def test_an_errored_game_leaves_its_pair_out(user: Any, two_versions: Any, play_score: Any) -> None:
    test = _create(user, two_versions, pairs_in_flight=1, max_games=4)
    first = queued(test)[0]
    attempt = match_claim(match_id=first.id, worker="w")
    assert match_record_error(match_id=first.id, attempt=attempt, reason="broken", retry=False) == "errored"
    while waiting := queued(test):
        play_score(waiting[0], test, 1)
    test.refresh_from_db()
    # Pair 0 lost a game; pair 1 was still allowed (the cap is two pairs); then nothing is left to play.
    assert (test.status, test.pairs, test.games, test.wins) == ("inconclusive", 1, 2, 2)
    assert Match.objects.filter(version_test_link__test=test).count() == 4


def test_cancel(user: Any, other: Any, two_versions: Any, play_score: Any) -> None:
    test = _create(user, two_versions)
    play_score(queued(test)[0], test, 1)
    with pytest.raises(ForbiddenError):
        version_test_cancel(test=test, user=other)
    test = version_test_cancel(test=test, user=user)
    assert test.status == "cancelled"
    assert not Match.objects.filter(version_test_link__test=test, status="queued").exists()
    with pytest.raises(ServiceError) as exc:
        version_test_cancel(test=test, user=user)
    assert exc.value.status_code == 409


def test_refused_requests(user: Any, other: Any, staff: Any, make_bot: Any, two_versions: Any) -> None:
    def refused(who: Any, bot: Any, **kwargs: Any) -> ServiceError:
        with pytest.raises(ServiceError) as exc:
            _create(who, bot, **kwargs)
        return exc.value

    assert isinstance(refused(other, two_versions), ForbiddenError)
    assert isinstance(refused(staff, two_versions), ForbiddenError)
    private = make_bot(name="hidden", visibility="private")
    assert isinstance(refused(other, private), NotFoundError)
    assert refused(user, two_versions, baseline_number=2).fields == {"baseline": ["same as the candidate"]}
    assert "baseline" in refused(user, two_versions, baseline_number=9).fields
    assert "elo1" in refused(user, two_versions, elo0=10, elo1=5).fields
    assert "alpha" in refused(user, two_versions, alpha=0.7).fields
    assert "max_games" in refused(user, two_versions, max_games=100_000).fields
    # Three seats of Sequence are three sides: no pentanomial, no test.
    seq = make_bot(game="sequence", name="seq")
    bot_version_create(bot=seq, user=user, package=b"print('v2')\n", filename="bot.py")
    error = refused(user, seq, seats=3)
    assert error.status_code == 400 and error.fields == {"seats": ["not two sides"]}
    assert not VersionTest.objects.exists() and not Match.objects.exists()
    # Two teams of two are two sides: allowed.
    assert _create(user, seq, seats=4, options={"teams": 2}, pairs_in_flight=1).status == "running"
