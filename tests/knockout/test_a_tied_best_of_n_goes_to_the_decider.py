"""A best-of-2 that ends 1-1 plays decider games, in the same round, until one is won.

When every decider is drawn too, the top seed goes through.
"""

from __future__ import annotations

from typing import Any

import pytest

from tournaments.competitions.brackets import DECIDERS_MOST
from tournaments.competitions.models import Tournament, TournamentRound
from tournaments.competitions.selectors.brackets import knockout_rounds, tournament_bracket
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.models import Match, MatchSeat

pytestmark = pytest.mark.django_db


def _play_out(tournament: Tournament, play: Any, ranks: Any) -> list[Match]:
    while queued := list(Match.objects.filter(tournament=tournament, status=Match.Status.QUEUED).order_by("index")):
        for match in queued:
            seats = list(
                MatchSeat.objects.filter(match=match).order_by("seat").values_list("bot_version_id", flat=True)
            )
            assert play(match, ranks(match.index, seats))
    return list(Match.objects.filter(tournament=tournament).order_by("index"))


def _knockout(user: Any, make_bot: Any) -> tuple[Tournament, list[int]]:
    bots = [make_bot(), make_bot()]
    tournament = tournament_create(
        owner=user,
        game_id="gamesup",
        name="ko",
        bot_ids=[b.id for b in bots],
        format=Tournament.Format.KNOCKOUT,
        games_per_pairing=2,
    )
    tournament_start(tournament=tournament, user=user)
    seeds = list(tournament.entries.order_by("number").values_list("bot_version_id", flat=True))
    return tournament, seeds


def test_a_tied_best_of_n_goes_to_the_decider(user: Any, make_bot: Any, play: Any) -> None:
    tournament, (top, low) = _knockout(user, make_bot)

    def ranks(index: int, seats: list[int]) -> list[int]:
        if index < 2:
            return [1, 2]  # the first seat wins each of the two games: 1-1
        if index == 2:
            return [1, 1]  # the first decider is drawn
        return [1 if v == low else 2 for v in seats]  # the second is won by the lower seed

    matches = _play_out(tournament, play, ranks)
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


def test_a_pairing_drawn_through_every_decider_goes_to_the_top_seed(user: Any, make_bot: Any, play: Any) -> None:
    tournament, (top, low) = _knockout(user, make_bot)
    matches = _play_out(tournament, play, lambda index, seats: [1, 1])
    assert len(matches) == 2 + DECIDERS_MOST
    bracket = tournament_bracket(tournament=tournament)
    assert bracket["nodes"][0]["winner"]["bot_version"] == top
    assert [(p["place"], p["bot_version"]) for p in bracket["placings"]] == [(1, top), (2, low)]
