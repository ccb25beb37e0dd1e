"""A running match's worker publishes its moves only; the process serving the page replays them into views.

Encoding every ply's public view had cost the worker a few ms of a short
match (tournaments/matches/livereplay.py).  The lists must hold no view, and
the views served must be the engine's own at every ply however far behind a
viewer asks: from the replay's kept views, or from a replay of its own.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis
from django.conf import settings
from django.contrib.auth.models import AnonymousUser

from tests.service.test_live_view import _publish, _sequence_match, backend
from tournaments.matches.claim import match_claim
from tournaments.matches.live import _entries, _key, match_live
from tournaments.matches.livereplay import Replays

pytestmark = pytest.mark.django_db

__all__ = ["backend"]  # the fixture, shared with test_live_view.py


def _raw_lines(match_id: int, attempt: int) -> list[str]:
    if settings.ARBITER_LIVE_REDIS_URL:
        raw = redis.Redis.from_url(settings.ARBITER_LIVE_REDIS_URL).lrange(_key(match_id, attempt), 0, -1)
        return [item.decode() for item in raw]
    return (settings.ARBITER_LIVE_DIR / f"{match_id}-{attempt}.jsonl").read_text().splitlines()


def test_the_lists_hold_moves_and_no_view(backend: str, user: Any, make_bot: Any) -> None:
    match = _sequence_match(user, make_bot)
    attempt = match_claim(match_id=match.id, worker="w")
    assert attempt is not None
    _publish(match, attempt, plies=5)
    lines = _raw_lines(match.id, attempt)
    assert len(lines) == 6
    entries = [json.loads(line) for line in lines]
    assert entries == _entries(match.id, attempt)
    assert set(entries[0]) == {"seat", "move", "ms", "rules"} and entries[0]["rules"] == "3"
    assert all(set(e) == {"seat", "move", "ms"} for e in entries[1:])
    assert max(len(line) for line in lines) < 80  # a Sequence view is about 2 KB


def test_a_viewer_far_behind_gets_every_view_from_a_replay_of_its_own(
    backend: str, user: Any, make_bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Replays, "RECENT", 3)
    match = _sequence_match(user, make_bot)
    attempt = match_claim(match_id=match.id, worker="w")
    assert attempt is not None
    seen = _publish(match, attempt, plies=4)
    # The first poll starts the process's replay; later ones extend it.
    first = match_live(user=AnonymousUser(), match_id=match.id)
    assert first is not None and [p["obs"] for p in first["plies"]] == seen
    more = _publish_more(match, attempt, seen, plies=6)
    tail = match_live(user=AnonymousUser(), match_id=match.id, since=9)
    assert tail is not None and [p["obs"] for p in tail["plies"]] == more[9:]
    # Kept: the last three positions (8, 9, 10); position 2 is further behind than that.
    behind = match_live(user=AnonymousUser(), match_id=match.id, since=2)
    assert behind is not None and [p["obs"] for p in behind["plies"]] == more[2:]
    assert [p["move"] for p in behind["plies"]] == [e["move"] for e in _entries(match.id, attempt)[2:]]


def _publish_more(match: Any, attempt: int, seen: list[dict[str, Any]], plies: int) -> list[dict[str, Any]]:
    """Publish the same game again, longer (the list begins again at its start): every view so far."""
    longer = _publish(match, attempt, plies=len(seen) - 1 + plies)
    assert longer[: len(seen)] == seen  # the same deal and the same choices, then more
    return longer
