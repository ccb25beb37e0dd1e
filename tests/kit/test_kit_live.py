"""Acceptance of the kit, per language: ``arbiter new``, ``check``, ``login``, ``upload`` to a live
service (web server, PostgreSQL, Redis, a Celery worker, the real sandbox), then a round robin
against the reference random bot, after which ``arbiter status`` shows the bot's rating.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from kit import cli
from kit.check import bot_check
from kit.starter import LANGUAGES
from tests.live import Api, random_bot
from tests.live.fixtures import LiveFactory
from tests.waiting import wait_for
from workers.sandbox.limits import SandboxLimits

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=False)]

GAME = "gamesup"
WAIT_S = 240


@pytest.fixture(scope="module")
def service(live_processes_session: LiveFactory) -> Api:
    """One web server and one worker of two processes, shared by the languages."""
    return live_processes_session(web="runserver", workers=1, concurrency=2, tag="kit").api()


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_new_check_upload_rated(
    service: Api,
    limits: SandboxLimits,
    language: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    user, password = f"kit-{language}", "a-long-password"
    service.post_json("/api/users/", {"username": user, "password": password})

    bot = tmp_path / f"{language}-starter"
    assert cli.main(["new", GAME, str(bot), "--lang", language]) == 0
    assert bot_check(directory=bot, games=1, limits=limits, say=lambda _: None).ok

    monkeypatch.setattr("sys.stdin", io.StringIO(password + "\n"))
    assert cli.main(["login", "--server", service.base, "--username", user, "--password-stdin"]) == 0
    assert cli.main(["upload", str(bot)]) == 0
    out = capsys.readouterr().out
    assert f"uploaded {language}-starter ({GAME})" in out and "version 1" in out
    # A second upload of the same folder is the bot's next version, not a second bot.
    assert cli.main(["upload", str(bot), "--notes", "again"]) == 0
    assert "version 2" in capsys.readouterr().out

    # The opponent belongs to someone else: one owner's bots never rate each other.
    rival = f"rival-{language}"
    service.token = service.post_json("/api/users/", {"username": rival, "password": password})["token"]
    opponent = service.upload_bot(GAME, f"random-for-{language}", "random_bot.py", random_bot())
    service.token = service.post_json("/api/auth/token/", {"username": user, "password": password})["token"]
    mine = [b for b in service.get(f"/api/bots/?mine=true&game={GAME}")["results"]]
    assert [b["name"] for b in mine] == [f"{language}-starter"]
    # A compiled starter went up as sources: the service builds each version before it plays.
    versions = wait_for(
        lambda: (v := service.get(f"/api/bots/{mine[0]['id']}/")["versions"])[-1]["state"] != "building" and v,
        WAIT_S,
        "the newest version's build to end",
        every=0.5,
    )
    assert [v["state"] for v in versions] == ["ready", "ready"], versions
    tournament = service.post_json(
        "/api/tournaments/",
        {
            "game": GAME,
            "name": f"kit {language}",
            "participants": [mine[0]["id"], opponent["id"]],
            "format": "double",
            "games_per_pairing": 1,
            "move_ms": 1000,
            "game_ms": 30000,
            "startup_ms": 10000,
            "start": True,
        },
    )
    tournament = service.wait_tournament(tournament["id"], WAIT_S)
    assert tournament["status"] == "finished", tournament
    detail = service.get(f"/api/bots/{mine[0]['id']}/")
    assert [(r["version"], r["games"]) for r in detail["ratings"]] == [(2, 2)], detail["ratings"]
    matches = service.all_pages(f"/api/matches/?tournament={tournament['id']}")
    # The starter played by the rules in every match: no seat forfeited.
    for match in matches:
        seats = service.get(f"/api/matches/{match['id']}/")["players"]
        assert all(p["status"] == "ok" for p in seats), seats

    assert cli.main(["status"]) == 0
    out = capsys.readouterr().out
    assert f"{language}-starter ({GAME}, bot {mine[0]['id']}, version 2, active)" in out
    assert "Elo" in out and "after 2 games" in out
