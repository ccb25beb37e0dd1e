"""Tournaments played in rounds (Swiss, knockouts) for the tests: started, then played as workers record them.

Shared by tests/swiss and tests/knockout; ``play`` is the service suite's
fixture (tests/service/conftest.py), which claims and records one match.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.models import Match, MatchSeat


def tournament_started(*, owner: Any, bots: Sequence[Any], format: str, **options: Any) -> Tournament:
    """A tournament of ``bots`` on gamesup in ``format``, created and started by ``owner``.

    ``options`` go to ``tournament_create`` as they are (``rounds``, ``games_per_pairing``, ...).
    """
    tournament = tournament_create(
        owner=owner, game_id="gamesup", name=format, bot_ids=[b.id for b in bots], format=format, **options
    )
    return tournament_start(tournament=tournament, user=owner)


def seeds_of(tournament: Tournament) -> list[int]:
    """The participants' bot versions in seed order (the top seed first)."""
    return list(tournament.entries.order_by("number").values_list("bot_version_id", flat=True))


def first_round_played_but_one(*, tournament: Tournament, play: Any) -> Match:
    """Every match of the first round recorded (the first seat winning) but the round's first, returned unplayed.

    The round stays open on that one match, which a test then ends its own way.
    """
    first, *rest = Match.objects.filter(tournament=tournament).order_by("index")
    for match in rest:
        assert play(match, [1, 2])
    return first


def queue_played(
    *, tournament: Tournament, play: Any, ranks: Callable[[Match, list[int]], Sequence[int]]
) -> list[Match]:
    """Every queued match recorded, as a worker records it, until none is queued; then all matches, in order.

    A round (or a decider) is queued only when the recordings of the one
    before plan it, so this plays the tournament a round at a time.
    ``ranks(match, seats)`` gives the seats' ranks from their bot versions
    in seat order.
    """
    while queued := list(Match.objects.filter(tournament=tournament, status=Match.Status.QUEUED).order_by("index")):
        for match in queued:
            seats = list(
                MatchSeat.objects.filter(match=match).order_by("seat").values_list("bot_version_id", flat=True)
            )
            assert play(match, list(ranks(match, seats)))
    return list(Match.objects.filter(tournament=tournament).order_by("index"))
