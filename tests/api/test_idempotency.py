"""``Idempotency-Key`` on the creating POSTs: a retry gets the first answer and makes nothing twice."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import assert_error, client_for
from tournaments.competitions.models import Challenge, Tournament


def _tournament(bots: list[int]) -> dict[str, Any]:
    return {"game": "gamesup", "participants": bots, "games_per_pairing": 1, "start": True}


def test_a_retry_with_the_same_key_gets_the_first_answer(user: Any, other: Any, make_bot: Any) -> None:
    bots = [make_bot().id, make_bot().id]
    client = client_for(user)
    first = client.post("/api/tournaments/", _tournament(bots), format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == 201, first.content
    again = client.post("/api/tournaments/", _tournament(bots), format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert Tournament.objects.count() == 1
    # Without a key, or with another, the request is new; keys are per user.
    assert client.post("/api/tournaments/", _tournament(bots), format="json").status_code == 201
    assert (
        client.post("/api/tournaments/", _tournament(bots), format="json", HTTP_IDEMPOTENCY_KEY="k-2").status_code
        == 201
    )
    theirs = [make_bot(owner=other).id, make_bot(owner=other).id]
    response = client_for(other).post(
        "/api/tournaments/", _tournament(theirs), format="json", HTTP_IDEMPOTENCY_KEY="k-1"
    )
    assert response.status_code == 201 and response.json()["id"] != first.json()["id"]
    assert Tournament.objects.count() == 4


def test_a_failed_request_keeps_nothing_and_a_reused_key_is_refused(user: Any, other: Any, make_bot: Any) -> None:
    mine, theirs = make_bot(), make_bot(owner=other)
    client = client_for(user)
    bad = client.post("/api/challenges/", {"bot": mine.id}, format="json", HTTP_IDEMPOTENCY_KEY="c-1")
    assert_error(bad, 400, "invalid")
    good = {"bot": mine.id, "opponent": theirs.id, "games": 2}
    response = client.post("/api/challenges/", good, format="json", HTTP_IDEMPOTENCY_KEY="c-1")
    assert response.status_code == 201, response.content
    assert client.post("/api/challenges/", good, format="json", HTTP_IDEMPOTENCY_KEY="c-1").json() == response.json()
    assert Challenge.objects.count() == 1
    reused = client.post(
        "/api/tournaments/", _tournament([mine.id, theirs.id]), format="json", HTTP_IDEMPOTENCY_KEY="c-1"
    )
    assert_error(reused, 422, "idempotency_key_reused")
    assert_error(client.post("/api/challenges/", good, format="json", HTTP_IDEMPOTENCY_KEY="x" * 201), 400, "invalid")
