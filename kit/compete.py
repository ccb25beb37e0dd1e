"""``arbiter tournament`` and ``arbiter challenge``: games on the server among chosen bots, watched to the end.

``arbiter tournament --gauntlet BOT`` plays one bot against the others named
(or, with ``--all-active``, every other active bot of its game) and prints the
gauntlet's report: the score, the performance against the field with its 95%
interval, and the record against each opponent.

Bots are named as an author would: a bot's id, ``owner/name`` (anyone's public bot),
or a bare name (your own bot of that name, else the one public bot so named).
Watching polls the server about once a second, draws a progress bar on stderr and
prints the standings (a tournament) or the score (a challenge) once every game is
over; Ctrl-C stops the watching, never the games.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

from kit import client
from workers.referee.text import plural, progress

POLL_S = 1.0
_OVER = ("finished", "errored", "cancelled")  # the progress counts of games that will not be played again


def _game_of(bots: list[dict[str, Any]], game: str | None) -> str:
    """The one game the named bots play (``--game`` when given); ApiError when they differ."""
    games = {str(b["game"]) for b in bots}
    if game and games - {game}:
        raise client.ApiError(f"not every bot plays {game}: " + ", ".join(f"{b['name']} ({b['game']})" for b in bots))
    if len(games) > 1:
        raise client.ApiError("the bots play different games: " + ", ".join(f"{b['name']} ({b['game']})" for b in bots))
    return game or games.pop()


def _clocks(args: argparse.Namespace) -> dict[str, int]:
    """The clocks given on the command line (the others are the server's defaults)."""
    return {k: getattr(args, k) for k in ("move_ms", "game_ms", "startup_ms") if getattr(args, k) is not None}


def _watch(
    fetch: Callable[[], dict[str, Any]], *, total: Callable[[dict[str, Any]], int], timeout: float | None
) -> dict[str, Any] | None:
    """Poll ``fetch`` until no game is left to play, drawing the progress; the last answer, or None on timeout.

    Ctrl-C stops the watching only (the games go on on the server), like a timeout.
    """
    try:
        return _poll(fetch, total=total, timeout=timeout)
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        return None


def _poll(
    fetch: Callable[[], dict[str, Any]], *, total: Callable[[dict[str, Any]], int], timeout: float | None
) -> dict[str, Any] | None:
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        state = fetch()
        counts = state.get("progress") or {}
        done = sum(int(counts.get(k, 0)) for k in _OVER)
        progress(done, total(state), note=f"{counts.get('running', 0)} running" if counts.get("running") else "")
        if state["status"] in ("finished", "cancelled"):
            sys.stderr.write("\n")
            return state
        if deadline is not None and time.monotonic() >= deadline:
            sys.stderr.write("\n")
            return None
        time.sleep(POLL_S)


def _standings_show(table: dict[str, Any]) -> None:
    """The standings as a table: place, bot, games, wins/draws/losses, points and the pool's Elo."""
    rows = table["standings"]
    width = max([len("bot"), *(len(f"{r['owner']}/{r['bot_name']} v{r['version']}") for r in rows)])
    print(f"{'#':>2}  {'bot':<{width}}  games     +    =    -  points     Elo")
    for r in rows:
        name = f"{r['owner']}/{r['bot_name']} v{r['version']}"
        elo = f"{r['elo']:7.0f}" if r.get("elo") is not None else "      -"
        print(
            f"{r['place']:>2}  {name:<{width}}  {r['games']:>5}  {r['wins']:>4} {r['draws']:>4} {r['losses']:>4}"
            f"  {r['points']:>6g} {elo}"
        )
        for status, count in (r.get("forfeits") or {}).items():
            print(f"    {' ' * width}forfeited {plural(int(count), 'game')}: {status}")


def _signed(value: float) -> str:
    return f"{value:+.0f}"


def _gauntlet_show(report: dict[str, Any]) -> None:
    """A gauntlet's report: the challenger's score and performance, then one line per opponent."""
    mine = report["challenger"]
    name = f"{mine['owner']}/{mine['bot_name']} v{mine['version']}"
    record = f"+{report['wins']} ={report['draws']} -{report['losses']}"
    print(f"gauntlet of {name}: {report['points']:g} of {plural(report['games'], 'point')} ({record})")
    if report.get("pentanomial") is not None:
        print(f"pairs: {report['pairs']}, scoring 0/0.5/1/1.5/2: " + " ".join(str(n) for n in report["pentanomial"]))
    perf = report.get("performance")
    if perf is None:
        print("performance: none yet (it needs a score between 0 and 100%)")
    else:
        print(
            f"performance {perf['rating']:.0f} ({perf['rating_low']:.0f} to {perf['rating_high']:.0f}, 95%): "
            f"{_signed(perf['elo_diff'])} Elo over the field's mean of {perf['field_elo']:.0f}"
        )
    rows = report["opponents"]
    width = max([len("opponent"), *(len(f"{r['owner']}/{r['bot_name']} v{r['version']}") for r in rows)])
    print(f"{'opponent':<{width}}  games     +    =    -  score  Elo diff (95%)")
    for r in rows:
        name = f"{r['owner']}/{r['bot_name']} v{r['version']}"
        score = f"{100 * r['score']:4.0f}%" if r["score"] is not None else "    -"
        diff = r["performance"]
        shown = f"{_signed(diff['elo_diff'])} ({_signed(diff['low'])} to {_signed(diff['high'])})" if diff else "-"
        print(f"{name:<{width}}  {r['games']:>5}  {r['wins']:>4} {r['draws']:>4} {r['losses']:>4}  {score}  {shown}")


def _tournament_spec(args: argparse.Namespace, login: client.Login) -> tuple[dict[str, Any], str]:
    """The API body of the round robin or gauntlet the command line asks for, and a line saying what it is."""
    if args.gauntlet is None and not args.all_active and len(args.bots) < 2:
        raise client.ApiError("a tournament needs at least two bots")
    if args.gauntlet is None and args.all_active and not args.game:
        raise client.ApiError("with --all-active and no bot named, give --game")
    if args.gauntlet is not None and not args.bots and not args.all_active:
        raise client.ApiError("name the gauntlet's field, or give --all-active")
    if args.all_active and args.bots:
        raise client.ApiError("name the field or give --all-active, not both")
    challenger = client.bot_resolve(login=login, ref=args.gauntlet, game=args.game) if args.gauntlet else None
    bots = [client.bot_resolve(login=login, ref=ref, game=args.game) for ref in args.bots]
    game = _game_of(bots + ([challenger] if challenger else []), args.game)
    spec: dict[str, Any] = {
        "game": game,
        "participants": [b["id"] for b in bots],
        "format": "gauntlet" if challenger else args.format,
        "games_per_pairing": args.games_per_pairing,
        **({"rounds": args.rounds} if args.rounds else {}),
        **({"seeding": args.seeding} if args.seeding else {}),
        "rated": not args.unrated,
        "all_active": bool(args.all_active),
        "start": True,
        **_clocks(args),
    }
    if challenger is not None:
        spec["challenger"] = challenger["id"]
        spec["name"] = args.name or f"{challenger['name']} gauntlet"
        field = "every other active bot" if args.all_active else plural(len(bots), "bot")
        return spec, f"gauntlet ({game}): {challenger['name']} against {field}"
    spec["name"] = args.name or " vs ".join(b["name"] for b in bots)[:200]
    return spec, f"({game}): {plural(len(bots), 'bot')}"


KNOCKOUTS = ("knockout", "double_elimination")


def _placings_show(bracket: dict[str, Any]) -> None:
    """A knockout's final placings, one line each: place, seed and name."""
    for row in bracket["placings"]:
        print(f"{row['place']:>3}  (seed {row['seed']})  {row['name']}")


def tournament_run(args: argparse.Namespace) -> int:
    """``arbiter tournament``: create and start a tournament of any format (or show one), then watch it."""
    login = client.login_load()
    if args.show is not None:
        tournament = client.tournament_get(login=login, tournament_id=args.show)
    else:
        spec, said = _tournament_spec(args, login)
        tournament = client.tournament_create(login=login, spec=spec)
        print(f"tournament {tournament['id']} {said}, started")
    print(f"see it at {login.server.rstrip('/')}/tournaments/{tournament['id']}/")
    if args.no_watch:
        return 0
    tid = int(tournament["id"])
    ended = _watch(
        lambda: client.tournament_get(login=login, tournament_id=tid),
        total=lambda t: int(t["progress"]["total"]),
        timeout=args.timeout,
    )
    if ended is None:
        print(f"still running; `arbiter tournament --show {tid}` watches it again")
        return 0
    print(f"tournament {tid}: {ended['status']}")
    if ended.get("format") == "gauntlet":
        _gauntlet_show(client.tournament_gauntlet(login=login, tournament_id=tid))
    elif ended.get("format") in KNOCKOUTS:
        _placings_show(client.tournament_bracket(login=login, tournament_id=tid))
    else:
        _standings_show(client.tournament_standings(login=login, tournament_id=tid))
    return 0


def challenge_run(args: argparse.Namespace) -> int:
    """``arbiter challenge``: games between your bot and another (or show a challenge), then the score."""
    login = client.login_load()
    if args.show is not None:
        challenge = client.challenge_get(login=login, challenge_id=args.show)
    else:
        if not args.bot or not args.opponent:
            raise client.ApiError("name your bot and its opponent (or give --show ID)")
        mine = client.bot_resolve(login=login, ref=args.bot)
        other = client.bot_resolve(login=login, ref=args.opponent, game=str(mine["game"]))
        spec = {"bot": mine["id"], "opponent": other["id"], "games": args.games, **_clocks(args)}
        challenge = client.challenge_create(login=login, spec=spec)
        print(
            f"challenge {challenge['id']} ({challenge['game']}): {mine['name']} vs "
            f"{other['owner']}/{other['name']}, {plural(int(challenge['games']), 'game')}"
        )
    if args.no_watch:
        return 0
    cid = int(challenge["id"])
    ended = _watch(
        lambda: client.challenge_get(login=login, challenge_id=cid),
        total=lambda c: int(c["games"]),
        timeout=args.timeout,
    )
    if ended is None:
        print(f"still running; `arbiter challenge --show {cid}` watches it again")
        return 0
    score = ended["score"]
    played = score["wins"] + score["draws"] + score["losses"]
    print(
        f"{ended['bot']['bot_name']} vs {ended['opponent']['owner']}/{ended['opponent']['bot_name']}: "
        f"+{score['wins']} ={score['draws']} -{score['losses']}, {score['points']:g} of {plural(played, 'point')}"
    )
    return 0


def _watching(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--show", type=int, metavar="ID", help="watch one you made before instead of making one")
    parser.add_argument("--no-watch", action="store_true", help="start it and return at once")
    parser.add_argument("--timeout", type=float, help="stop watching after this many seconds (the games go on)")
    for name in ("move-ms", "game-ms", "startup-ms"):
        parser.add_argument(f"--{name}", type=int, help="the clock (default: the server's)")


def parsers_add(sub: Any) -> None:
    """Add the ``tournament`` and ``challenge`` commands to ``arbiter``'s sub-parsers."""
    tournament = sub.add_parser(
        "tournament",
        help="a round robin, Swiss, knockout or gauntlet on the server among chosen bots (yours and others' public)",
    )
    tournament.add_argument("bots", nargs="*", metavar="BOT", help="a bot's id, owner/name, or the name of your bot")
    tournament.add_argument("--game", help="game id (default: the bots' game)")
    tournament.add_argument("--name", help="the tournament's name (default: the bots' names)")
    tournament.add_argument(
        "--format",
        choices=("single", "double", "swiss", *KNOCKOUTS),
        default="single",
        help="a round robin (default single), swiss, or a knockout (single or double elimination)",
    )
    tournament.add_argument(
        "--seeding",
        choices=("rating", "random"),
        help="swiss and knockouts: seeds by rating (default) or a random draw on the server",
    )
    tournament.add_argument("--rounds", type=int, default=0, help="swiss: rounds to play (default: ceil(log2(bots)))")
    tournament.add_argument(
        "--games-per-pairing", type=int, default=2, help="default 2 (a knockout: best of this many, deciders if level)"
    )
    tournament.add_argument("--unrated", action="store_true", help="leave the ratings alone")
    tournament.add_argument(
        "--gauntlet", metavar="BOT", help="a gauntlet: this bot against each BOT named (its field), in pairs of games"
    )
    tournament.add_argument(
        "--all-active", action="store_true", help="every active bot of the game enters (for a gauntlet: its field)"
    )
    _watching(tournament)
    tournament.set_defaults(run=tournament_run)
    challenge = sub.add_parser("challenge", help="games between your bot and any public bot, watched")
    challenge.add_argument("bot", nargs="?", help="your bot: its id or name")
    challenge.add_argument("opponent", nargs="?", help="the other bot: its id, owner/name or name")
    challenge.add_argument("--games", type=int, default=2, help="default 2 (the bots change seats every game)")
    _watching(challenge)
    challenge.set_defaults(run=challenge_run)
