"""One user cannot flood the service: round robins are bounded, queues capped, creation rate-limited.

Each refusal names its setting and writes nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import assert_error, client_for
from tournaments.competitions.models import Participant, Tournament
from tournaments.matches.models import Match


def _post(user: Any, bots: list[Any], games: int = 1, **extra: Any) -> Any:
    body = {"game": "gamesup", "participants": [b.id for b in bots], "games_per_pairing": games, **extra}
    return client_for(user).post("/api/tournaments/", body, format="json")


def _nothing_written() -> None:
    assert not Tournament.objects.exists() and not Participant.objects.exists() and not Match.objects.exists()


def test_too_many_matches_is_refused_before_any_row(settings: Any, user: Any, make_bot: Any) -> None:
    settings.ARBITER_TOURNAMENT_MAX_MATCHES = 10
    bots = [make_bot() for _ in range(5)]  # 10 pairs
    error = assert_error(_post(user, bots, games=2, start=True), 400, "too_many_matches")
    assert "ARBITER_TOURNAMENT_MAX_MATCHES" in error["message"] and "20 matches" in error["message"]
    _nothing_written()
    assert _post(user, bots, games=1, start=True).status_code == 201
    assert Match.objects.count() == 10


def test_double_round_robins_count_both_legs(settings: Any, user: Any, make_bot: Any) -> None:
    settings.ARBITER_TOURNAMENT_MAX_MATCHES = 5
    bots = [make_bot() for _ in range(3)]  # 3 pairs, 6 games over two legs
    assert_error(_post(user, bots, format="double"), 400, "too_many_matches")
    _nothing_written()


def test_too_many_participants(settings: Any, user: Any, make_bot: Any) -> None:
    settings.ARBITER_TOURNAMENT_MAX_PARTICIPANTS = 3
    error = assert_error(_post(user, [make_bot() for _ in range(4)]), 400, "too_many_participants")
    assert "ARBITER_TOURNAMENT_MAX_PARTICIPANTS" in error["message"]
    _nothing_written()


def test_queued_matches_per_user(settings: Any, user: Any, other: Any, make_bot: Any) -> None:
    settings.ARBITER_QUEUED_MATCHES_PER_USER = 5
    bots = [make_bot(), make_bot()]
    assert _post(user, bots, games=4, start=True).status_code == 201
    error = assert_error(_post(user, bots, games=2, start=True), 429, "queue_limit")
    assert "ARBITER_QUEUED_MATCHES_PER_USER" in error["message"]
    # Refused with the start: the draft it came with is gone too.
    assert Tournament.objects.count() == 1 and Match.objects.count() == 4
    # A draft queues nothing, so it is allowed; starting it is not.
    draft = _post(user, bots, games=2).json()["id"]
    assert_error(client_for(user).post(f"/api/tournaments/{draft}/start/"), 429, "queue_limit")
    assert Match.objects.count() == 4
    # The limit is per user: another user's queue is their own.
    assert _post(other, bots, games=4, start=True).status_code == 201


def test_tournaments_per_hour(settings: Any, user: Any, staff: Any, make_bot: Any) -> None:
    settings.ARBITER_TOURNAMENTS_PER_HOUR = 2
    bots = [make_bot(), make_bot()]
    assert [_post(user, bots).status_code for _ in range(2)] == [201, 201]
    error = assert_error(_post(user, bots), 429, "tournament_limit")
    assert "ARBITER_TOURNAMENTS_PER_HOUR" in error["message"]
    assert Tournament.objects.count() == 2
    assert [_post(staff, bots).status_code for _ in range(3)] == [201, 201, 201]


@pytest.mark.parametrize(("max_matches", "entered"), [(3, 3), (6, 4), (20_000, 6)])
def test_all_active_enters_only_as_many_bots_as_fit(
    settings: Any, user: Any, make_bot: Any, max_matches: int, entered: int
) -> None:
    settings.ARBITER_TOURNAMENT_MAX_MATCHES = max_matches
    for _ in range(6):
        make_bot(owner="new")
    response = _post(user, [], all_active=True, start=True)
    assert response.status_code == 201, response.content
    assert len(response.json()["participants"]) == entered
    assert Match.objects.count() == entered * (entered - 1) // 2 <= max_matches
