"""The local ``python -m workers.referee.local`` command."""

from __future__ import annotations

import io
import math
import zipfile
from pathlib import Path

import pytest

from tests.referee.support import RANDOM_BOT
from workers.referee import local
from workers.sandbox.limits import SandboxLimits


def test_summary_and_seating() -> None:
    assert local.seat_order(0, 2) == [0, 1] and local.seat_order(1, 2) == [1, 0]
    assert local.seat_order(1, 4) == [1, 0, 1, 0]
    even = local.summary([1.0, 0.0, 0.5, 0.5])
    assert even["score"] == 0.5 and even["elo"] == 0 and even["elo_low"] < 0 < even["elo_high"]
    sweep = local.summary([1.0] * 10)
    assert sweep["elo"] == math.inf and math.isfinite(sweep["elo_low"]) and sweep["elo_low"] > 0
    assert round(local.elo_from_score(0.75)) == 191


def test_play_command(tmp_path: Path, limits: SandboxLimits, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ARBITER_SANDBOX_FIRST_UID", str(limits.first_uid))
    monkeypatch.setenv("ARBITER_SANDBOX_SLOTS", str(limits.slots))
    monkeypatch.setenv("ARBITER_SANDBOX_DIR", limits.runtime_dir)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.write(RANDOM_BOT, "main.py")
    package = tmp_path / "zipped.zip"
    package.write_bytes(buf.getvalue())
    code = local.main(["--game", "count-test", str(RANDOM_BOT), str(package), "--games", "3", "--option", "target=5"])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("game 1 seed 1 [0:random_bot.py, 1:zipped.zip]")
    assert lines[1].startswith("game 2 seed 2 [0:zipped.zip, 1:random_bot.py]")
    assert lines[3].startswith("random_bot.py vs zipped.zip: +") and "Elo" in lines[3]
    assert "3/3" in err


def test_play_rejects_bad_bot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"nope")
    assert local.main(["--game", "count-test", str(bad), str(RANDOM_BOT)]) == 2
    assert "not a valid zip" in capsys.readouterr().err


def test_play_shows_bot_text_with_control_characters_escaped(
    tmp_path: Path, limits: SandboxLimits, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A forfeiting bot's stderr (window title, clear screen, clipboard write) reaches the terminal escaped."""
    monkeypatch.setenv("ARBITER_SANDBOX_FIRST_UID", str(limits.first_uid))
    monkeypatch.setenv("ARBITER_SANDBOX_SLOTS", str(limits.slots))
    monkeypatch.setenv("ARBITER_SANDBOX_DIR", limits.runtime_dir)
    nasty = tmp_path / "nasty.py"
    nasty.write_text(
        "import sys\n"
        "sys.stdin.readline()\n"
        "sys.stderr.write('\\x1b]0;pwned\\x07\\x1b[2J\\x1b]52;c;ZWNobyBoaQ==\\x07\\rover\\n')\n"
        'print(\'{"type": "ready"}\', flush=True)\n'
        "sys.stdin.readline()\n"
        'print(\'{"move": "\\\\u001b[31mnope"}\', flush=True)\n'
    )
    code = local.main(["--game", "count-test", str(nasty), str(RANDOM_BOT), "--option", "target=5"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out
    assert "| \\x1b]0;pwned\\x07\\x1b[2J\\x1b]52;c;ZWNobyBoaQ==\\x07\\x0dover" in out
    assert "illegal_move" in out
