"""A gauntlet through the API: created and started with its challenger, its report read back, OpenAPI naming it."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import assert_error, client_for
from tests.service.conftest import RANDOM_BOT
from tournaments.bots.services import bot_version_create
from tournaments.competitions.models import Tournament
from tournaments.matches.models import Match


def test_a_gauntlet_is_made_started_and_reported(user: Any, make_bot: Any, score_games: Any) -> None:
    mine = make_bot(name="mine")
    old = mine.versions.get().id
    bot_version_create(bot=mine, user=user, package=RANDOM_BOT + b"\n# v2\n", filename="random_bot.py")
    rivals = [make_bot(owner="new", name=f"rival{n}") for n in range(3)]
    api = client_for(user)
    body = {
        "game": "gamesup",
        "format": "gauntlet",
        "challenger": mine.id,
        "versions": [old],  # the older version is the one tested
        "participants": [r.id for r in rivals],
        "games_per_pairing": 2,
        "start": True,
    }
    made = api.post("/api/tournaments/", body, format="json")
    assert made.status_code == 201, made.content
    detail = made.json()
    assert detail["format"] == "gauntlet" and detail["challenger"] == old
    assert detail["progress"]["total"] == 6 and detail["planned"] == 6
    assert [p["bot"] for p in detail["participants"]] == [mine.id, *(r.id for r in rivals)]
    tournament = Tournament.objects.get(id=detail["id"])

    score_games(tournament, [1.0, 1.0, 0.5, 0.0, 1.0, 0.5])
    report = api.get(f"/api/tournaments/{tournament.id}/gauntlet/").json()
    assert report["status"] == "finished" and report["progress"]["finished"] == 6
    assert report["challenger"]["bot_version"] == old and report["challenger"]["version"] == 1
    assert (report["wins"], report["draws"], report["losses"], report["points"]) == (3, 2, 1, 4.0)
    assert report["pentanomial"] == [0, 1, 0, 1, 1] and report["pairs"] == 3
    assert report["performance"]["counted"] == "pairs"
    assert [(o["bot"], o["points"]) for o in report["opponents"]] == [
        (rivals[0].id, 2.0),
        (rivals[1].id, 0.5),
        (rivals[2].id, 1.5),
    ]
    # Anyone may read it, as any tournament of public bots.
    assert client_for().get(f"/api/tournaments/{tournament.id}/gauntlet/").json() == report


def test_the_schema_documents_the_report_and_the_challenger() -> None:
    schema = client_for().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    report = schema["paths"]["/api/tournaments/{tournament_id}/gauntlet/"]["get"]
    assert set(report["responses"]) >= {"200", "404"}
    components = schema["components"]["schemas"]
    assert {"performance", "pentanomial", "opponents", "challenger"} <= set(components["GauntletReport"]["properties"])
    assert "challenger" in components["TournamentInputRequest"]["properties"]
    assert "gauntlet" in components["TournamentFormatEnum"]["enum"]


def test_a_round_robin_has_no_gauntlet_report(user: Any, make_bot: Any) -> None:
    a, b = make_bot(), make_bot()
    made = (
        client_for(user)
        .post("/api/tournaments/", {"game": "gamesup", "participants": [a.id, b.id]}, format="json")
        .json()
    )
    assert_error(client_for(user).get(f"/api/tournaments/{made['id']}/gauntlet/"), 404)
    assert made["challenger"] is None


def test_refusals_name_the_field_at_fault(user: Any, make_bot: Any) -> None:
    api = client_for(user)
    mine, rival = make_bot(), make_bot(owner="new")
    seq_mine, seq_a, seq_b = (make_bot(game="sequence") for _ in range(3))
    cases = [
        ({"game": "gamesup", "format": "gauntlet", "participants": [rival.id]}, "challenger"),
        ({"game": "gamesup", "format": "gauntlet", "challenger": mine.id, "participants": []}, "participants"),
        ({"game": "gamesup", "format": "gauntlet", "challenger": mine.id, "participants": [mine.id]}, "participants"),
        ({"game": "gamesup", "challenger": mine.id, "participants": [mine.id, rival.id]}, "challenger"),
        # Three players of Sequence are three sides: the challenger against a team of two is not a pairing.
        (
            {"game": "sequence", "seats": 3, "format": "gauntlet", "challenger": seq_mine.id,
             "participants": [seq_a.id, seq_b.id]},
            "seats",
        ),
    ]  # fmt: skip
    for body, field in cases:
        error = assert_error(api.post("/api/tournaments/", body, format="json"), 400)
        assert field in error["fields"], (body, error)
    assert not Tournament.objects.exists() and not Match.objects.exists()
