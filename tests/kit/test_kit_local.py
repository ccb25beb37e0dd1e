"""The ``arbiter`` command's local parts: new, check (through the real sandbox), packing, the token file."""

from __future__ import annotations

import io
import json
import stat
import zipfile
from pathlib import Path

import pytest

from kit import cli, client
from kit.check import bot_check
from kit.packing import package_directory
from kit.starter import LANGUAGES, starter_write
from workers.match import Clock
from workers.packages.archive import PackageError, inspect_package
from workers.sandbox.limits import SandboxLimits

CLOCK = Clock(move_ms=1000, game_ms=30_000, startup_ms=5000)


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_new_then_check_plays_legal_games(tmp_path: Path, limits: SandboxLimits, language: str) -> None:
    bot = tmp_path / f"my-{language}"
    starter_write(game="gamesup", directory=bot, language=language)
    lines: list[str] = []
    report = bot_check(directory=bot, games=1, limits=limits, clock=CLOCK, say=lines.append)
    text = "\n".join(lines)
    assert report.ok, text
    assert report.games == 2, text  # one game against each reference bot
    assert "package: ok" in text and "ready to upload" in text
    manifest = json.loads((bot / "bot.json").read_text())
    assert manifest["game"] == "gamesup" and manifest["name"] == f"my-{language}"


def _bot(tmp_path: Path, body: str) -> Path:
    bot = tmp_path / "bad"
    bot.mkdir()
    (bot / "main.py").write_text(body)
    return bot


LOOP = """
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif msg["type"] == "turn":
        %s
    else:
        break
"""


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (
            'print("thinking..."); print(json.dumps({"move": msg["legal_moves"][0]}), flush=True)',
            "debug output belongs on stderr",
        ),
        ('print(json.dumps({"move": "no-such-move"}), flush=True)', "not in legal_moves"),
        ('print(json.dumps({"move": msg["legal_moves"][0]}))', "flush stdout"),
        ("raise SystemExit(3)", "stopped before the game was over"),
    ],
)
def test_check_explains_mistakes(tmp_path: Path, limits: SandboxLimits, answer: str, words: str) -> None:
    bot = _bot(tmp_path, LOOP % answer)
    lines: list[str] = []
    report = bot_check(directory=bot, game="gamesup", games=1, limits=limits, clock=CLOCK, say=lines.append)
    assert not report.ok
    assert len(report.problems) == 2, lines
    assert all(words in p for p in report.problems), lines


def test_check_refuses_a_package_as_the_server_does(tmp_path: Path) -> None:
    bot = tmp_path / "nocommand"
    bot.mkdir()
    (bot / "bot.json").write_text('{"command": "python3 main.py", "game": "gamesup"}')
    (bot / "main.py").write_text("")
    lines: list[str] = []
    report = bot_check(directory=bot, say=lines.append)
    assert not report.ok and report.games == 0
    assert report.problems == ['package: bot.json must be an object like {"command": ["python3", "main.py"]}']


def test_failed_build_is_reported_with_the_compiler_output(tmp_path: Path) -> None:
    bot = tmp_path / "cbot"
    starter_write(game="gamesup", directory=bot, language="c")
    source = bot / "bot.c"
    source.write_text(source.read_text().replace("int main(void) {", "int main(void) { this is not C;"))
    lines: list[str] = []
    report = bot_check(directory=bot, say=lines.append)
    assert not report.ok and report.games == 0
    assert report.problems[0].startswith("package: the build failed (exit status 1)")
    assert "bot.c:" in report.problems[0]  # the compiler's own words, pointing at the line


def _alive_in_group(pgid: int) -> list[int]:
    """Processes of a process group that still run (killed ones may linger as zombies of a subreaper)."""
    alive = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                alive.append(int(entry.name))
    return alive


def _with_build(tmp_path: Path, build: list[str]) -> Path:
    bot = tmp_path / "built"
    starter_write(game="gamesup", directory=bot, language="python")
    manifest = json.loads((bot / "bot.json").read_text())
    (bot / "bot.json").write_text(json.dumps({**manifest, "build": build}))
    return bot


def test_build_past_its_time_is_stopped_with_all_its_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARBITER_KIT_BUILD_SECONDS", "1")
    bot = _with_build(tmp_path, ["sh", "-c", "echo $$ > build.pid; exec >/dev/null 2>&1; sleep 120 & sleep 120"])
    report = bot_check(directory=bot, say=lambda _: None)
    assert report.problems == ["package: the build took longer than 1 s and was stopped"]
    leader = int((bot / "build.pid").read_text())
    assert _alive_in_group(leader) == []  # the background sleep went too


def test_build_past_its_memory_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARBITER_KIT_BUILD_MEMORY_MB", "64")
    bot = _with_build(tmp_path, ["python3", "-c", "bytearray(200 << 20)"])
    report = bot_check(directory=bot, say=lambda _: None)
    assert report.problems[0].startswith("package: the build failed (exit status 1)")
    assert "MemoryError" in report.problems[0]


def test_package_keeps_executable_bits_and_skips_leftovers(tmp_path: Path) -> None:
    bot = tmp_path / "pkg"
    starter_write(game="pileup", directory=bot, language="python")
    (bot / "__pycache__").mkdir()
    (bot / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"x")
    (bot / "run.sh").write_text("#!/bin/sh\n")
    (bot / "run.sh").chmod(0o755)
    name, data = package_directory(bot)
    assert name == "pkg.zip"
    names = {i.filename: i.external_attr >> 16 for i in zipfile.ZipFile(io.BytesIO(data)).infolist()}
    assert sorted(names) == ["bot.json", "main.py", "run.sh"]
    assert names["run.sh"] & 0o111 and not names["main.py"] & 0o111
    assert inspect_package(data, name).command == ("python3", "main.py")


def test_new_refuses_a_folder_with_files_and_unknown_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    assert cli.main(["new", "gamesup", str(tmp_path / "full")]) == 2
    assert "already holds files" in capsys.readouterr().err
    assert cli.main(["new", "chess", str(tmp_path / "b")]) == 2
    assert "chess" in capsys.readouterr().err and not (tmp_path / "b").exists()


def test_login_file_is_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    with pytest.raises(client.ApiError, match="not logged in"):
        client.login_load()
    path = client.login_save(client.Login(server="http://x", username="ada", token="t0k"))
    assert path == tmp_path / "config" / "arbiter" / "config.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert client.login_load() == client.Login(server="http://x", username="ada", token="t0k")


def _manifest_zip(manifest: dict[str, object], files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.json", json.dumps(manifest))
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def test_a_package_with_a_build_is_sources_the_server_builds() -> None:
    build = ["gcc", "-o", "bot", "bot.c"]
    unbuilt = _manifest_zip({"command": ["./bot"], "build": build}, {"bot.c": "int main(void) { return 0; }"})
    info = inspect_package(unbuilt, "b.zip")
    assert info.command == ("./bot",) and info.build == tuple(build)
    assert inspect_package(_manifest_zip({"command": ["./bot"]}, {"bot": ""}), "b.zip").build == ()
    # A runtime from /usr needs nothing built into the package.
    assert inspect_package(_manifest_zip({"command": ["node", "x.js"], "build": ["true"]}, {"x.js": ""}), "b.zip")
    with pytest.raises(PackageError, match=r'"build" in bot\.json must be a command'):
        inspect_package(_manifest_zip({"command": ["./bot"], "build": "make"}, {"bot": ""}), "b.zip")


def test_status_shows_a_failed_build_with_its_lines_made_safe(capsys: pytest.CaptureFixture[str]) -> None:
    from kit.cli import _builds_show

    failed = {"number": 2, "state": "failed", "build_log": "the build failed (exit status 1):\nbot.c:1: \x1b[31merror"}
    _builds_show({"versions": [{"number": 1, "state": "ready", "build_log": ""}, failed]})
    out = capsys.readouterr().out
    assert out == (
        "    version 2: the build failed; it never plays:\n"
        "      | the build failed (exit status 1):\n"
        "      | bot.c:1: \\x1b[31merror\n"
    )
    _builds_show({"versions": [{"number": 3, "state": "building", "build_log": ""}]})
    assert capsys.readouterr().out == "    version 3: building on the server\n"
    _builds_show({"versions": [{"number": 4, "state": "ready", "build_log": ""}]})
    assert capsys.readouterr().out == ""
