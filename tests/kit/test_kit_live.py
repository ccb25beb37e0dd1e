"""Acceptance of the kit, per language, with the ``arbiter`` command alone: ``new``, ``check``,
``login``, ``upload`` to a live service (web server, PostgreSQL, Redis, a Celery worker, the real
sandbox), ``tournament`` against another user's reference random bot, watched to its standings,
after which ``status`` shows the bot's rating.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from kit import cli
from kit.starter import LANGUAGES
from tests.live import Api, random_bot
from tests.live.fixtures import LiveFactory
from workers.sandbox.limits import SandboxLimits

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=False)]

GAME = "gamesup"
WAIT_S = 240


@pytest.fixture(scope="module")
def service(live_processes_session: LiveFactory) -> Api:
    """One web server and one worker of two processes, shared by the languages."""
    return live_processes_session(web="runserver", workers=1, concurrency=2, tag="kit").api()


def _account(service: Api, command: str, user: str, password: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``arbiter signup`` or ``arbiter login``, the password on stdin."""
    monkeypatch.setattr("sys.stdin", io.StringIO(password + "\n"))
    assert cli.main([command, "--server", service.base, "--username", user, "--password-stdin"]) == 0


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
    for name, value in (("FIRST_UID", limits.first_uid), ("SLOTS", limits.slots), ("DIR", limits.runtime_dir)):
        monkeypatch.setenv(f"ARBITER_SANDBOX_{name}", str(value))
    user, password = f"kit-{language}", "a-long-password"
    _account(service, "signup", user, password, monkeypatch)

    bot = tmp_path / f"{language}-starter"
    assert cli.main(["new", GAME, str(bot), "--lang", language]) == 0
    assert cli.main(["check", str(bot), "--games", "1"]) == 0
    assert "ready to upload" in capsys.readouterr().out

    assert cli.main(["upload", str(bot)]) == 0
    out = capsys.readouterr().out
    assert f"uploaded {language}-starter ({GAME})" in out and "version 1" in out
    # A second upload of the same folder is the bot's next version, not a second bot; --wait
    # returns once the service has built it (a compiled starter goes up as sources).
    assert cli.main(["upload", str(bot), "--notes", "again", "--wait"]) == 0
    out = capsys.readouterr().out
    assert "version 2" in out and "failed" not in out, out

    # The opponent belongs to someone else (one owner's bots never rate each other), and is a
    # single file, uploaded with the same command.
    rival = f"rival-{language}"
    _account(service, "signup", rival, password, monkeypatch)
    opponent_file = tmp_path / f"random-for-{language}.py"
    opponent_file.write_bytes(random_bot())
    assert cli.main(["upload", str(opponent_file), "--game", GAME]) == 0
    assert f"uploaded random-for-{language} ({GAME})" in capsys.readouterr().out
    _account(service, "login", user, password, monkeypatch)

    # The author names their own bot by name, the other by owner/name; the command plays the
    # round robin to its end and prints the standings.
    clocks = ["--move-ms", "1000", "--game-ms", "30000", "--startup-ms", "10000"]
    command = ["tournament", f"{language}-starter", f"{rival}/random-for-{language}", "--games-per-pairing", "2"]
    assert cli.main([*command, *clocks, "--timeout", str(WAIT_S)]) == 0
    captured = capsys.readouterr()
    assert "2/2" in captured.err, captured.err  # the progress bar reached the end
    tournament_id = int(captured.out.split("tournament ", 1)[1].split(" ", 1)[0])
    assert f"tournament {tournament_id}: finished" in captured.out, captured.out
    assert f"{user}/{language}-starter v2" in captured.out and f"{rival}/random-for-{language} v1" in captured.out
    service.token = service.post_json("/api/auth/token/", {"username": user, "password": password})["token"]
    mine = service.get(f"/api/bots/?mine=true&game={GAME}")["results"]
    assert [b["name"] for b in mine] == [f"{language}-starter"]
    detail = service.get(f"/api/bots/{mine[0]['id']}/")
    assert [(r["version"], r["games"]) for r in detail["ratings"]] == [(2, 2)], detail["ratings"]
    # The starter played by the rules in every match: no seat forfeited.
    for match in service.all_pages(f"/api/matches/?tournament={tournament_id}"):
        seats = service.get(f"/api/matches/{match['id']}/")["players"]
        assert all(p["status"] == "ok" for p in seats), seats

    assert cli.main(["status"]) == 0
    out = capsys.readouterr().out
    assert f"{language}-starter ({GAME}, bot {mine[0]['id']}, version 2, active)" in out
    assert "Elo" in out and "after 2 games" in out

    if language != "python":
        return  # one language is enough for the challenge: the command does not depend on it
    command = ["challenge", f"{language}-starter", f"{rival}/random-for-{language}", "--games", "2"]
    assert cli.main([*command, *clocks, "--timeout", str(WAIT_S)]) == 0
    out = capsys.readouterr().out
    assert f"{language}-starter vs {rival}/random-for-{language}: +" in out and "of 2 points" in out, out

    # A gauntlet of the starter against the rival (one pair, seats swapped): the command prints its report,
    # the same figures as the API's.
    command = ["tournament", "--gauntlet", f"{language}-starter", f"{rival}/random-for-{language}"]
    assert cli.main([*command, "--games-per-pairing", "2", *clocks, "--timeout", str(WAIT_S)]) == 0
    out = capsys.readouterr().out
    assert f"gauntlet ({GAME}): {language}-starter against 1 bot, started" in out, out
    gauntlet_id = int(out.split("tournament ", 1)[1].split(" ", 1)[0])
    report = service.get(f"/api/tournaments/{gauntlet_id}/gauntlet/")
    record = f"+{report['wins']} ={report['draws']} -{report['losses']}"
    assert f"gauntlet of {user}/{language}-starter v2: {report['points']:g} of 2 points ({record})" in out, out
    assert f"pairs: 1, scoring 0/0.5/1/1.5/2: {' '.join(str(n) for n in report['pentanomial'])}" in out, out
    opponent = report["opponents"][0]
    assert f"{rival}/random-for-{language} v1      2  {opponent['wins']:>4} {opponent['draws']:>4}" in out, out
