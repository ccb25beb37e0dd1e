"""A challenge's score is read from the reader's side: the challenged owner sees their own bot's wins."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import client_for
from tests.service.conftest import ranks_by_version
from tournaments.matches.models import Match


def test_the_challenged_owner_reads_their_own_bots_score(
    user: Any, other: Any, staff: Any, make_bot: Any, play: Any
) -> None:
    mine = make_bot(name="challenger")
    theirs = make_bot(owner=other, name="challenged")
    body = (
        client_for(user)
        .post("/api/challenges/", {"bot": mine.id, "opponent": theirs.id, "games": 4}, format="json")
        .json()
    )
    theirs_version = body["opponent"]["bot_version"]
    matches = Match.objects.filter(challenge_link__challenge_id=body["id"]).order_by("challenge_link__number")
    for match, winner in zip(matches, [theirs_version, theirs_version, theirs_version, None], strict=True):
        play(match, ranks_by_version(match, winner))  # the challenged bot wins three and draws one

    def score(who: Any) -> dict[str, Any]:
        response = client_for(who).get(f"/api/challenges/{body['id']}/")
        assert response.status_code == 200, response.content
        return dict(response.json()["score"])

    assert score(other) == {"side": "opponent", "wins": 3, "draws": 1, "losses": 0, "points": 3.5}
    assert score(user) == {"side": "bot", "wins": 0, "draws": 1, "losses": 3, "points": 0.5}
    assert score(staff)["side"] == "bot"  # a third party reads the challenger's side
