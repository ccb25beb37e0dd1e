"""A gauntlet's report equals what its matches say, recounted here by hand.

Challenger C against A and B, four games per pairing (two pairs, seats
swapped within each), gamesup: C's scores are chosen per game, and every
figure of the report is compared with a value written below, each also
recomputed here from the raw scores with the textbook formulas (not with
Arbiter's statistics code): the logistic Elo of the score, and its standard
error from the spread of the pair scores (fishtest's pentanomial way) or of
the game scores (per opponent).
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.gauntlets.conftest import seats_of
from tournaments.competitions.selectors.gauntlets import gauntlet_report
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.ratings.models import Rating

# Plan order: C-A, A-C, C-B, B-C (first pairs), then C-A, A-C, C-B, B-C (second pairs).
SCORES = [1.0, 0.5, 0.0, 0.5, 1.0, 0.0, 1.0, 0.5]
Z95 = 1.959964


def _elo(score: float) -> float:
    return -400.0 * math.log10(1.0 / score - 1.0)


def _elo_stderr(samples: list[float], games: int) -> float:
    """Standard error (Elo) of the mean score per game, from samples that are per-game means (games or pairs)."""
    mean = sum(samples) / len(samples)
    variance = sum((x - mean) ** 2 for x in samples) / len(samples)
    per_game_sd = math.sqrt(variance * games / len(samples))  # a pair's mean is over two games
    return per_game_sd / math.sqrt(games) * 400.0 / math.log(10.0) / (mean * (1.0 - mean))


def test_the_report_equals_a_recount(user: Any, make_bot: Any, score_games: Any) -> None:
    challenger, a, b = (make_bot(owner="new", name=n) for n in ("challenger", "a", "b"))
    draft = tournament_create(
        owner=user,
        game_id="gamesup",
        name="g",
        format="gauntlet",
        challenger_id=challenger.id,
        bot_ids=[a.id, b.id],
        games_per_pairing=4,
    )
    tournament = tournament_start(tournament=draft, user=user)
    score_games(tournament, SCORES)
    report = gauntlet_report(tournament=tournament)
    assert report is not None

    # Totals: W 3 (games 0, 4, 6), D 3 (1, 3, 7), L 2 (2, 5); 4.5 points of 8.
    assert (report["games"], report["wins"], report["draws"], report["losses"]) == (8, 3, 3, 2)
    assert report["points"] == 4.5 and report["score"] == 0.5625
    # Pairs (indexes 0-1, 2-3, 4-5, 6-7) score 1.5, 0.5, 1, 1.5: none at 0 or 2, one at 1/2 and 1, two at 3/2.
    pair_means = [(SCORES[i] + SCORES[i + 1]) / 2 for i in range(0, 8, 2)]
    assert pair_means == [0.75, 0.25, 0.5, 0.75]
    assert report["pairs"] == 4 and report["pentanomial"] == [0, 1, 1, 2, 0]

    performance = report["performance"]
    assert performance["counted"] == "pairs" and performance["games"] == 8
    elo, stderr = 43.7, 73.2
    assert _elo(0.5625) == pytest.approx(elo, abs=0.05)
    assert _elo_stderr(pair_means, 8) == pytest.approx(stderr, abs=0.05)
    assert performance["elo_diff"] == pytest.approx(elo, abs=0.1)
    assert performance["stderr"] == pytest.approx(stderr, abs=0.15)
    assert performance["low"] == pytest.approx(elo - Z95 * stderr, abs=0.3)
    assert performance["high"] == pytest.approx(elo + Z95 * stderr, abs=0.3)
    # The field's mean Elo in the pool (both opponents counted for four games), plus the difference.
    field = [Rating.objects.get(pool=tournament.rating_pool, bot_version__bot=bot).elo for bot in (a, b)]
    assert performance["field_elo"] == pytest.approx(sum(field) / 2, abs=0.05)
    assert performance["rating"] == pytest.approx(sum(field) / 2 + elo, abs=0.2)

    # Per opponent, from C's side: A gave 1, 0.5, 1, 0 (W2 D1 L1), B 0, 0.5, 1, 0.5 (W1 D2 L1).
    rows = {row["bot"]: row for row in report["opponents"]}
    assert [row["bot"] for row in report["opponents"]] == [a.id, b.id]
    for bot, record, scores, (elo, stderr) in (
        (a, (4, 2, 1, 1, 2.5), [1.0, 0.5, 1.0, 0.0], (88.7, 153.6)),
        (b, (4, 1, 2, 1, 2.0), [0.0, 0.5, 1.0, 0.5], (0.0, 122.8)),
    ):
        row = rows[bot.id]
        assert (row["games"], row["wins"], row["draws"], row["losses"], row["points"]) == record
        assert _elo(sum(scores) / 4) == pytest.approx(elo, abs=0.05)
        assert _elo_stderr(scores, 4) == pytest.approx(stderr, abs=0.05)
        assert row["performance"]["elo_diff"] == pytest.approx(elo, abs=0.1)
        assert row["performance"]["stderr"] == pytest.approx(stderr, abs=0.15)
    # The challenger is named, and played the first seat in the first game of every pair.
    assert report["challenger"]["bot"] == challenger.id
    for index, versions, _ in seats_of(tournament):
        assert (versions[0] == tournament.challenger_id) == (index % 2 == 0)
