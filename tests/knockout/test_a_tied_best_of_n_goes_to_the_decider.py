"""A best-of-2 that ends 1-1 plays decider games, in the same round, until one is won."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rounds import queue_played, seeds_of, tournament_started
from tournaments.competitions.models import Tournament, TournamentRound
from tournaments.competitions.selectors.brackets import knockout_rounds, tournament_bracket
from tournaments.matches.models import Match, MatchSeat

pytestmark = pytest.mark.django_db


def test_a_tied_best_of_n_goes_to_the_decider(user: Any, make_bot: Any, play: Any) -> None:
    bots = [make_bot(), make_bot()]
    tournament = tournament_started(owner=user, bots=bots, format=Tournament.Format.KNOCKOUT, games_per_pairing=2)
    top, low = seeds_of(tournament)

    def ranks(match: Match, seats: list[int]) -> list[int]:
        if match.index < 2:
            return [1, 2]  # the first seat wins each of the two games: 1-1
        if match.index == 2:
            return [1, 1]  # the first decider is drawn
        return [1 if v == low else 2 for v in seats]  # the second is won by the lower seed

    matches = queue_played(tournament=tournament, play=play, ranks=ranks)
    assert len(matches) == 4
    # The deciders alternate the seats on from the pairing's games: the top seed first in game 3, second in game 4.
    firsts = [MatchSeat.objects.get(match=m, seat=0).bot_version_id for m in matches]
    assert firsts == [top, low, top, low]
    assert list(TournamentRound.objects.filter(tournament=tournament).values_list("number", "size")) == [(1, 4)]
    tournament.refresh_from_db()
    assert (tournament.status, tournament.rounds, tournament.planned) == (Tournament.Status.FINISHED, 1, 4)
    (round_1,) = knockout_rounds(tournament=tournament)  # the rounds endpoint's view: the deciders in round 1
    assert [len(p["matches"]) for p in round_1["pairings"]] == [4]
    final = tournament_bracket(tournament=tournament)["nodes"][0]
    assert (final["first_points"], final["second_points"]) == (1.5, 2.5)
    assert final["winner"]["bot_version"] == low
