"""`arbiter tournament --format double_elimination --seeding random` starts a knockout on a real server."""

from __future__ import annotations

from pathlib import Path

import pytest

from kit import client
from kit.cli import main
from tests.api.conftest import LiveServer
from tests.live import ROOT


@pytest.mark.slow
def test_the_cli_starts_a_knockout(
    live_api: LiveServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A user and bots of its own: the other tests on this server use up the shared user's hour and bots.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    server = live_api.base
    token = client.user_create(server=server, username="knockout-cli", password="a-long-password")
    login = client.Login(server=server, username="knockout-cli", token=token)
    client.login_save(login)
    package = ("random_bot.py", (ROOT / "kit" / "bots" / "random_bot.py").read_bytes())
    bots = [client.bot_upload(login=login, game="gamesup", name=f"ko-{n}", package=package)["id"] for n in (1, 2)]

    command = ["tournament", *map(str, bots), "--format", "double_elimination", "--seeding", "random"]
    assert main([*command, "--games-per-pairing", "1", "--no-watch"]) == 0
    out = capsys.readouterr().out
    tournament_id = int(out.split("tournament ", 1)[1].split(" ", 1)[0])
    bracket = client.tournament_bracket(login=login, tournament_id=tournament_id)
    assert (bracket["format"], bracket["seeding"], bracket["games_per_pairing"]) == ("double_elimination", "random", 1)
    # Two bots: the first pairing is under way, the grand final and its reset wait for it.
    assert [(n["key"], n["status"]) for n in bracket["nodes"]] == [
        ("W1-1", "due"),
        ("F1", "waiting"),
        ("F2", "waiting"),
    ]
