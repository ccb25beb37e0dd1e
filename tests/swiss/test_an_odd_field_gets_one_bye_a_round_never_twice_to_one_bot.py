"""An odd field: exactly one bye a round, never twice to one bot, worth a pairing won in the standings."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.swiss.conftest import elo_winner
from tournaments.competitions.models import Participant, TournamentRound
from tournaments.competitions.selectors.standings import tournament_standings
from tournaments.matches.models import Match, MatchSeat

pytestmark = pytest.mark.django_db


def test_an_odd_field_gets_one_bye_a_round_never_twice_to_one_bot(swiss_played: Any) -> None:
    rng = random.Random(7)

    def winner(a: int, b: int) -> int:
        return elo_winner(dict.fromkeys((a, b), 0.0), rng)(a, b)

    # Seven bots play at most three rounds (half the field), two games a pairing.
    tournament = swiss_played(count=7, rounds=3, winner=winner, games_per_pairing=2)

    rounds = list(TournamentRound.objects.filter(tournament=tournament).order_by("number"))
    assert [r.number for r in rounds] == [1, 2, 3]
    byes = [r.bye_id for r in rounds]
    assert None not in byes
    assert len(set(byes)) == 3, byes
    for row in rounds:
        games = Match.objects.filter(
            tournament=tournament, index__gte=row.first_index, index__lt=row.first_index + row.size
        )
        playing = set(MatchSeat.objects.filter(match__in=games).values_list("bot_version_id", flat=True))
        assert row.size == 3 * 2
        assert row.bye_id not in playing
        assert len(playing) == 6
    assert set(byes) <= set(Participant.objects.filter(tournament=tournament).values_list("bot_version_id", flat=True))

    standings = {row["bot_version"]: row for row in tournament_standings(tournament=tournament, performance=False)}
    for version in byes:
        # Two games played in each of two rounds, and the bye's two points.
        row = standings[version]
        assert row["games"] == 4
        assert row["points"] == row["wins"] + row["draws"] / 2 + 2
