"""The version-test API: who may do what, the body as the test goes, refusals in the one error shape."""

from __future__ import annotations

import math
from typing import Any

from tests.api.conftest import assert_error, client_for
from tests.version_tests.conftest import queued
from tournaments.bots.services import bot_version_create
from tournaments.competitions.models import VersionTest
from tournaments.ratings.stats import Sprt


def test_create_read_and_follow(user: Any, other: Any, two_versions: Any, play_score: Any) -> None:
    url = f"/api/bots/{two_versions.id}/version-tests/"
    assert_error(client_for(other).post(url, {"baseline": 1}, format="json"), 403)
    assert_error(client_for().post(url, {"baseline": 1}, format="json"), 401)
    response = client_for(user).post(url, {"baseline": 1, "elo1": 25, "max_games": 40}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["candidate"], body["baseline"], body["status"], body["game"]) == (2, 1, "running", "gamesup")
    assert (body["elo0"], body["elo1"], body["alpha"], body["beta"], body["max_games"]) == (0.0, 25.0, 0.05, 0.05, 40)
    assert body["progress"]["queued"] == 8 and len(body["matches"]) == 8
    assert math.isclose(body["upper"], math.log(0.95 / 0.05)) and math.isclose(body["lower"], -body["upper"])
    test = VersionTest.objects.get(id=body["id"])
    scores = [1, 0.5, 1, 0, 1, 1]  # pairs (1, 0.5), (1, 0), (1, 1)
    for score in scores:
        play_score(queued(test)[0], test, score)
    detail = client_for(other).get(f"{url}{test.id}/").json()  # a public bot: anyone reads its tests
    expected = Sprt(elo1=25, max_games=40).status([(1, 0.5), (1, 0), (1, 1)])
    assert (detail["wins"], detail["draws"], detail["losses"]) == (4, 1, 1)
    assert detail["pentanomial"] == [0, 0, 1, 1, 1] == list(expected.counts.pentanomial)
    assert (detail["games"], detail["pairs"], detail["status"]) == (6, 3, "running")
    assert math.isclose(detail["llr"], expected.llr)
    assert detail["estimate"]["elo"] > 0
    assert detail["progress"]["finished"] == 6 and detail["progress"]["queued"] == 8  # topped up to four pairs
    assert [(m["pair"], m["game"], m["score"]) for m in detail["matches"][:6]] == [
        (0, 0, 1.0),
        (0, 1, 0.5),
        (1, 0, 1.0),
        (1, 1, 0.0),
        (2, 0, 1.0),
        (2, 1, 1.0),
    ]
    listed = client_for().get(url).json()
    assert [t["id"] for t in listed["results"]] == [test.id] and listed["results"][0]["llr"] == detail["llr"]
    assert_error(client_for(other).post(f"{url}{test.id}/cancel/"), 403)
    cancelled = client_for(user).post(f"{url}{test.id}/cancel/").json()
    assert cancelled["status"] == "cancelled" and cancelled["progress"]["queued"] == 0
    assert_error(client_for(user).post(f"{url}{test.id}/cancel/"), 409)


def test_private_bots_and_refusals(user: Any, other: Any, make_bot: Any) -> None:
    hidden = make_bot(name="hidden", visibility="private")
    bot_version_create(bot=hidden, user=user, package=b"print('v2')\n", filename="bot.py")
    url = f"/api/bots/{hidden.id}/version-tests/"
    assert_error(client_for(other).get(url), 404)
    assert_error(client_for(other).post(url, {"baseline": 1}, format="json"), 404)
    assert client_for(user).get(url).json()["results"] == []
    error = assert_error(client_for(user).post(url, {"baseline": 1, "elo0": 5, "elo1": 5}, format="json"), 400)
    assert "elo1" in error["fields"]
    assert_error(client_for(user).post(url, {"elo1": 5}, format="json"), 400)  # baseline is required
    seq = make_bot(game="sequence", name="seq")
    bot_version_create(bot=seq, user=user, package=b"print('v2')\n", filename="bot.py")
    response = client_for(user).post(f"/api/bots/{seq.id}/version-tests/", {"baseline": 1, "seats": 3}, format="json")
    assert assert_error(response, 400)["fields"] == {"seats": ["not two sides"]}
    assert_error(client_for(user).get(f"/api/bots/{seq.id}/version-tests/999/"), 404)
    assert not VersionTest.objects.exists()
