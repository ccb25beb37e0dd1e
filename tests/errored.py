"""Tournaments with errored matches, made as the service makes them: a claimed attempt ended by a service error."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.claim import match_claim
from tournaments.matches.models import Match
from tournaments.matches.record import match_record_error


def started_tournament(*, owner: Any, bots: Sequence[Any], name: str, errored: int = 0) -> Tournament:
    """A started round robin of ``bots`` whose first ``errored`` matches ended ERRORED (out of attempts)."""
    draft = tournament_create(owner=owner, game_id="gamesup", name=name, bot_ids=[b.id for b in bots])
    tournament = tournament_start(tournament=draft, user=owner)
    for match in Match.objects.filter(tournament=tournament).order_by("id")[:errored]:
        attempt = match_claim(match_id=match.id, worker="test")
        assert attempt is not None
        assert match_record_error(match_id=match.id, attempt=attempt, reason="disk full", retry=False) == "errored"
    assert Match.objects.filter(tournament=tournament, status=Match.Status.ERRORED).count() == errored
    return tournament
