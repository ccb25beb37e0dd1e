"""A 16-bot double elimination, best of 2, played through the record service: the documented number of
matches, and a bracket (the API's selector) that says what the recorded results say."""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any

import pytest

from tournaments.competitions.brackets import DECIDERS_MOST, bracket_pairings_played
from tournaments.competitions.models import Participant, Tournament
from tournaments.competitions.selectors.brackets import tournament_bracket
from tournaments.matches.models import Match, MatchSeat

pytestmark = pytest.mark.django_db

GAMES = 2


def test_a_16_bot_double_elimination_plays_the_documented_matches(knockout_played: Any) -> None:
    rng = random.Random(16)
    strengths = [60.0 * i for i in range(16)]
    rng.shuffle(strengths)
    by_version: dict[int, float] = {}

    def ranks(a: int, b: int) -> list[int]:
        if not by_version:
            versions = Participant.objects.order_by("bot_version_id").values_list("bot_version_id", flat=True)
            by_version.update(zip(versions, strengths, strict=True))
        expected = 1.0 / (1.0 + math.pow(10.0, (by_version[b] - by_version[a]) / 400.0))
        roll = rng.random()
        if abs(roll - expected) < 0.2:
            return [1, 1]  # a draw, one game in five or so: tied pairings go to deciders
        return [1, 2] if roll < expected else [2, 1]

    tournament = knockout_played(
        count=16, format=Tournament.Format.DOUBLE_ELIMINATION, ranks=ranks, games_per_pairing=GAMES
    )

    assert tournament.status == Tournament.Status.FINISHED
    bracket = tournament_bracket(tournament=tournament)
    nodes = {n["key"]: n for n in bracket["nodes"]}
    played = [n for n in bracket["nodes"] if n["matches"]]
    reset = bool(nodes["F2"]["matches"])
    deciders = sum(len(n["matches"]) - GAMES for n in played)
    assert len(played) == bracket_pairings_played(16, double=True, reset=reset)
    assert deciders > 0, "no pairing tied: the decider was not exercised"
    matches = Match.objects.filter(tournament=tournament)
    assert matches.count() == GAMES * len(played) + deciders
    assert not matches.exclude(status=Match.Status.FINISHED).exists()

    # Every node's winner is the side with more points over its games, the higher seed when level after the deciders.
    losses: Counter[int] = Counter()
    for node in played:
        first, second = node["first"]["bot_version"], node["second"]["bot_version"]
        points = {first: 0.0, second: 0.0}
        for game in node["matches"]:
            seats = dict(MatchSeat.objects.filter(match_id=game["id"]).values_list("bot_version_id", "rank"))
            assert set(seats) == {first, second}
            best = min(seats.values())
            winners = [v for v, r in seats.items() if r == best]
            for v in winners:
                points[v] += 1.0 / len(winners)
        assert node["first_points"] == points[first] and node["second_points"] == points[second]
        assert len(node["matches"]) <= GAMES + DECIDERS_MOST
        if points[first] != points[second]:
            won = max(points, key=points.__getitem__)
        else:
            assert len(node["matches"]) == GAMES + DECIDERS_MOST
            won = min((node["first"], node["second"]), key=lambda e: e["seed"])["bot_version"]
        assert node["winner"]["bot_version"] == won
        losses[second if won == first else first] += 1

    # The champion lost at most once (in the first grand final), everyone else exactly twice.
    places = {row["bot_version"]: row["place"] for row in bracket["placings"]}
    champion = nodes["F2"]["winner"]["bot_version"]
    assert places[champion] == 1 and sorted(places.values())[:2] == [1, 2]
    assert losses[champion] == (1 if reset else 0)
    assert all(losses[v] == 2 for v in places if v != champion)
