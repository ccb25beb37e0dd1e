"""The ``arbiter`` command: write, try, check and upload a bot.

arbiter new gamesup mybot --lang python
arbiter check mybot
arbiter play mybot kit/bots/greedy --games 20
arbiter login --server http://localhost:8000 --username ada
arbiter upload mybot
arbiter tournament mybot bob/rival carol/other --games-per-pairing 2
arbiter tournament --gauntlet mybot bob/rival carol/other
arbiter challenge mybot bob/rival --games 4
arbiter status

Each command imports what it needs when it runs (the sandbox, the referee, the engines),
so that ``arbiter status`` or ``--help`` starts in a few tens of milliseconds.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kit import client, compete
from kit.starter import LANGUAGES
from workers.referee.text import clean_text, plural


def _new(args: argparse.Namespace) -> int:
    from kit.starter import starter_write

    files = starter_write(game=args.game, directory=args.dir, language=args.lang)
    for path in files:
        print(f"wrote {path}")
    print(f"next: add your search where the starter says so, then `arbiter check {args.dir}`")
    return 0


def _check(args: argparse.Namespace) -> int:
    from kit.check import bot_check
    from workers.match import Clock
    from workers.referee.local import infrastructure_report
    from workers.sandbox.start import InfrastructureError

    clock = Clock(move_ms=args.move_ms) if args.move_ms else Clock()
    try:
        report = bot_check(directory=args.dir, game=args.game, games=args.games, clock=clock)
    except InfrastructureError as exc:
        infrastructure_report(exc)
        return 3
    return 0 if report.ok else 1


def _password(args: argparse.Namespace, *, twice: bool = False) -> str:
    """The password from stdin (``--password-stdin``) or typed at the terminal (``twice`` for a new one)."""
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\n")
    password = getpass.getpass(f"password for {args.username} at {args.server}: ")
    if twice and getpass.getpass("the same password again: ") != password:
        raise ValueError("the two passwords differ")
    return password


def _login(args: argparse.Namespace) -> int:
    token = client.token_get(server=args.server, username=args.username, password=_password(args))
    path = client.login_save(client.Login(server=args.server, username=args.username, token=token))
    print(f"logged in as {args.username}; token stored in {path}")
    return 0


def _signup(args: argparse.Namespace) -> int:
    password = _password(args, twice=True)
    token = client.user_create(server=args.server, username=args.username, password=password)
    path = client.login_save(client.Login(server=args.server, username=args.username, token=token))
    print(f"signed up and logged in as {args.username}; token stored in {path}")
    return 0


def _upload(args: argparse.Namespace) -> int:
    from kit.packing import manifest_read, package_read
    from kit.starter import starter_name
    from workers.packages.archive import PackageError, inspect_package

    login = client.login_load()
    manifest = manifest_read(args.dir) if args.dir.is_dir() else {}
    game = args.game or manifest.get("game")
    # A single file names the bot after itself: mybot.py is mybot.
    name = args.name or manifest.get("name") or starter_name(args.dir.parent / args.dir.name.split(".")[0])
    if not game:
        raise PackageError('which game? give --game, or "game" in bot.json')
    # The sources go up as they are: the server builds a version whose bot.json names a build
    # (its own build replaces any program built here by `arbiter check`).
    filename, data = package_read(args.dir)
    inspect_package(data, filename)  # refused here with the server's own words, before any upload
    bot = client.bot_upload(login=login, game=str(game), name=str(name), package=(filename, data), notes=args.notes)
    newest = max(bot.get("versions") or [{}], key=lambda v: v.get("number", 0))
    state = newest.get("state", "ready")
    print(f"uploaded {bot['name']} ({bot['game']}): bot {bot['id']}, version {newest.get('number')} ({state})")
    if state == "building" and args.wait:
        bot = client.build_wait(login=login, bot_id=int(bot["id"]))
        _builds_show(bot)
        newest = max(bot["versions"], key=lambda v: v.get("number", 0))
        if newest["state"] == "ready":
            print(f"version {newest['number']}: built on the server, ready to play")
    elif state == "building":
        print("the server builds it (bot.json's build); `arbiter status` shows when it is ready")
    print(f"see it at {login.server.rstrip('/')}/bots/{bot['id']}/")
    return 0


def _builds_show(bot: dict[str, Any]) -> None:
    """The newest version's build, when it is not (yet) playable: building, or failed with why."""
    newest = max(bot.get("versions") or [{}], key=lambda v: v.get("number", 0))
    state = newest.get("state", "ready")
    if state == "building":
        print(f"    version {newest['number']}: building on the server")
    elif state == "failed":
        print(f"    version {newest['number']}: the build failed; it never plays:")
        for line in str(newest.get("build_log", "")).splitlines():
            print(f"      | {clean_text(line)}")


def _status(args: argparse.Namespace) -> int:
    login = client.login_load()
    bots = client.bots_mine(login=login)
    print(f"{login.username} at {login.server}: {plural(len(bots), 'bot')}")
    for bot in bots:
        state = "active" if bot["active"] else "inactive"
        print(f"{bot['name']} ({bot['game']}, bot {bot['id']}, version {bot['current_version']}, {state})")
        _builds_show(bot)
        for rating in bot["ratings"]:
            print(
                f"    {rating['pool']}: Elo {rating['elo']:.0f} after {plural(rating['games'], 'game')} "
                f"(+{rating['wins']} ={rating['draws']} -{rating['losses']})"
            )
        if not bot["ratings"]:
            print("    not rated yet")
    return 0


def parser_build() -> argparse.ArgumentParser:
    """The command line of ``arbiter``."""
    parser = argparse.ArgumentParser(
        prog="arbiter", description="Write, try, check and upload Arbiter bots, and play them on the server."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    new = sub.add_parser("new", help="write a starter bot into a new folder")
    new.add_argument("game", help="game id, e.g. gamesup")
    new.add_argument("dir", type=Path)
    new.add_argument("--lang", choices=sorted(LANGUAGES), default="python")
    new.set_defaults(run=_new)
    sub.add_parser("play", help="play bots against each other locally (see `arbiter play --help`)", add_help=False)
    check = sub.add_parser("check", help="check a bot as the server will, then play it against the reference bots")
    check.add_argument("dir", type=Path, metavar="BOT", help="a bot folder, or a single file (.py, .zip, .tar.gz)")
    check.add_argument("--game", help='game id (default: "game" in bot.json)')
    check.add_argument("--games", type=int, default=2, help="games against each reference bot (default 2)")
    check.add_argument("--move-ms", type=int, help="the move clock (default: the service's)")
    check.set_defaults(run=_check)
    for command, run, text in (
        ("signup", _signup, "make an account on a server, then store its token"),
        ("login", _login, "get a token from a server and store it"),
    ):
        login = sub.add_parser(command, help=text)
        login.add_argument("--server", required=True, help="e.g. http://localhost:8000")
        login.add_argument("--username", required=True)
        login.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
        login.set_defaults(run=run)
    upload = sub.add_parser(
        "upload", help="upload a bot (a folder or a single file): a new bot, or a new version of your bot of that name"
    )
    upload.add_argument("dir", type=Path, metavar="BOT", help="a bot folder, or a single file (.py, .zip, .tar.gz)")
    upload.add_argument("--game", help='game id (default: "game" in bot.json)')
    upload.add_argument("--name", help='bot name (default: "name" in bot.json, else the folder name)')
    upload.add_argument("--notes", default="", help="notes for a new version")
    upload.add_argument("--wait", action="store_true", help="wait for the server's build (bot.json's build)")
    upload.set_defaults(run=_upload)
    status = sub.add_parser("status", help="your bots on the server, their versions and ratings")
    status.set_defaults(run=_status)
    compete.parsers_add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["play"]:
        from kit.packing import bot_prepare
        from workers.referee import local

        return local.main(argv[1:], prog="arbiter play", prepare=bot_prepare)
    args = parser_build().parse_args(argv)
    try:
        return int(args.run(args))
    except (client.ApiError, ValueError) as exc:  # a PackageError is a ValueError
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
