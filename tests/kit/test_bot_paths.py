"""``arbiter check`` and ``arbiter play`` take what an upload takes: a single ``.py`` file or a
folder; a folder whose bot.json names a build is built before it plays, and bot.json names the
game, so neither command needs ``--game`` then.  Every count is in good English.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kit import REFERENCE_BOTS, cli
from kit.starter import starter_write
from workers.sandbox.limits import SandboxLimits

RANDOM = REFERENCE_BOTS / "random_bot.py"


@pytest.fixture
def sandbox_env(limits: SandboxLimits, monkeypatch: pytest.MonkeyPatch) -> None:
    """The commands read their sandbox from the environment: point it at the tests' slots."""
    for name, value in (("FIRST_UID", limits.first_uid), ("SLOTS", limits.slots), ("DIR", limits.runtime_dir)):
        monkeypatch.setenv(f"ARBITER_SANDBOX_{name}", str(value))


def test_check_takes_a_single_python_file(sandbox_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["check", str(RANDOM), "--game", "gamesup", "--games", "1"]) == 0
    out = capsys.readouterr().out
    assert "package: ok (1 file, " in out and "runs python3 main.py" in out, out
    assert "2 games, score" in out and "ready to upload" in out, out
    assert " 1 moves" not in out and " 1 files" not in out


def test_check_of_a_single_file_asks_for_the_game_after_checking_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["check", str(RANDOM)]) == 1
    out = capsys.readouterr().out
    assert "package: ok (1 file, " in out and "which game? give --game (a single file has no bot.json)" in out, out


def test_play_builds_a_c_folder_and_takes_the_game_from_bot_json(
    sandbox_env: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = tmp_path / "cbot"
    starter_write(game="gamesup", directory=bot, language="c")
    assert not (bot / "bot").exists()  # only sources: play must build it
    assert cli.main(["play", str(bot), str(RANDOM), "--games", "1"]) == 0
    out = capsys.readouterr().out
    assert "build of cbot: ok" in out and (bot / "bot").is_file(), out
    assert "game 1 seed 1 [0:cbot, 1:random_bot.py]" in out and "cbot vs random_bot.py: +" in out, out


def test_play_says_which_game_when_nothing_names_one(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main(["play", str(RANDOM), str(RANDOM)])
    assert stop.value.code == 2
    assert 'which game? give --game, or "game" in bot.json' in capsys.readouterr().err
