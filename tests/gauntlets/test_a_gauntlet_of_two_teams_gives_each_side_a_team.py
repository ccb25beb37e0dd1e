"""Team games of two teams are a gauntlet's too: the challenger fills one team's seats, its opponent the other's."""

from __future__ import annotations

from typing import Any

from engines import get_engine
from tests.gauntlets.conftest import seats_of
from tournaments.competitions.selectors.gauntlets import gauntlet_report
from tournaments.competitions.services.tournaments import tournament_create, tournament_start


def test_four_seats_in_two_teams(user: Any, make_bot: Any, score_games: Any) -> None:
    challenger, rival = make_bot(game="sequence"), make_bot(owner="new", game="sequence")
    draft = tournament_create(
        owner=user,
        game_id="sequence",
        name="teams",
        seats=4,
        format="gauntlet",
        challenger_id=challenger.id,
        bot_ids=[rival.id],
    )
    tournament = tournament_start(tournament=draft, user=user)
    teams = get_engine("sequence").teams(4, tournament.options)
    assert len(teams) == 2
    c, r = tournament.challenger_id, rival.versions.get().id
    # Game 0: the challenger's team holds seat 0; game 1: the rival's does.
    for index, by_seat, _ in seats_of(tournament):
        first, second = (c, r) if index == 0 else (r, c)
        assert [by_seat[s] for s in teams[0]] == [first] * len(teams[0])
        assert [by_seat[s] for s in teams[1]] == [second] * len(teams[1])
    score_games(tournament, [1.0, 0.0])
    report = gauntlet_report(tournament=tournament)
    assert report is not None
    assert (report["wins"], report["losses"], report["pentanomial"]) == (1, 1, [0, 0, 1, 0, 0])
