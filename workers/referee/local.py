"""Play bots against each other locally, through the same referee and sandbox as the service.

    python -m workers.referee.local --game gamesup kit/bots/random_bot.py kit/bots/greedy --games 20

Bots are paths to a ``.py`` file, a ``.zip`` / ``.tar.gz`` package or a directory
holding ``bot.json`` or ``main.py``.  Seats are swapped every other game.  Each
game's result goes to stdout, a progress bar to stderr, and a summary at the end
gives the first bot's wins, draws and losses, its score and the Elo difference
with a 95% interval.  No Django, no database.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import engines
from workers.match import Clock, MatchRecord, MatchSpec, SeatStatus
from workers.packages.archive import PackageError, program_from_directory, unpack_package
from workers.referee.play import play_match
from workers.referee.text import clean_text, plural, progress
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.start import (
    BotProgram,
    ExternalKillError,
    InfrastructureError,
    SandboxUnavailableError,
    SlotRangeConflictError,
)


def load_bot(path: Path, scratch: Path) -> BotProgram:
    """A runnable program for a bot path (packages are validated and unpacked into ``scratch``)."""
    if path.is_dir():
        return program_from_directory(path)
    if not path.is_file():
        raise PackageError(f"{path}: no such file or directory")
    dest = Path(tempfile.mkdtemp(dir=scratch)) / "bot"
    return unpack_package(path.read_bytes(), path.name, dest)


def parse_option(text: str) -> tuple[str, object]:
    """``name=value`` with value read as JSON when it parses (numbers, true/false), else as text."""
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"options look like name=value, not {text!r}")
    try:
        return name, json.loads(raw)
    except ValueError:
        return name, raw


def elo_from_score(p: float) -> float:
    """Elo difference that predicts the score fraction ``p`` (infinite at 0 and 1)."""
    if p <= 0:
        return -math.inf
    if p >= 1:
        return math.inf
    return -400 * math.log10(1 / p - 1)


def summary(points: Sequence[float]) -> dict[str, float]:
    """Score fraction and Elo difference with a 95% interval, from per-game points (1, 0.5, 0)."""
    n = len(points)
    p = sum(points) / n
    # The interval is a normal approximation on the mean score, using the games' own spread
    # (draws narrow it).  Two pseudo-wins and two pseudo-losses (the Agresti-Coull idea) keep
    # it finite and honest after a clean sweep, where the raw spread would be zero.
    padded = [*points, 1.0, 1.0, 0.0, 0.0]
    m = len(padded)
    q = sum(padded) / m
    var = sum((x - q) ** 2 for x in padded) / (m - 1)
    margin = 1.96 * math.sqrt(var / m)
    return {
        "score": p,
        "elo": elo_from_score(p),
        "elo_low": elo_from_score(q - margin),
        "elo_high": elo_from_score(q + margin),
    }


def seat_order(game_index: int, seats: int) -> list[int]:
    """Which bot (0 = first, 1 = second) sits in each seat; swapped every other game."""
    order = [s % 2 for s in range(seats)]
    return order if game_index % 2 == 0 else [1 - b for b in order]


def points_for_first(record: MatchRecord, order: list[int]) -> float:
    """1, 0.5 or 0 for the first bot: its best seat's rank against the second bot's."""
    first = min(r for r, b in zip(record.ranks, order, strict=True) if b == 0)
    second = min(r for r, b in zip(record.ranks, order, strict=True) if b == 1)
    return 1.0 if first < second else 0.5 if first == second else 0.0


def _fmt_elo(x: float) -> str:
    return f"{x + 0.0:+.0f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", help='game id, e.g. gamesup (default: "game" in the bots\' bot.json)')
    parser.add_argument("bots", nargs=2, type=Path, metavar="BOT", help=".py file, .zip/.tar.gz package or directory")
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game; game i uses seed+i")
    parser.add_argument("--seats", type=int, default=None, help="seat count (default: the game's default)")
    parser.add_argument("--option", action="append", type=parse_option, default=[], help="game option name=value")
    parser.add_argument("--move-ms", type=int, default=Clock.move_ms)
    parser.add_argument("--game-ms", type=int, default=Clock.game_ms)
    parser.add_argument("--startup-ms", type=int, default=Clock.startup_ms)
    parser.add_argument("--json", action="store_true", help="print each match record as one JSON line")
    parser.add_argument(
        "--allow-unsandboxed", action="store_true", help="run bots as plain processes if bubblewrap is missing"
    )
    return parser


def _report_game(
    i: int,
    seed: int,
    record: MatchRecord,
    order: list[int],
    names: list[str],
    statuses: dict[str, int],
    *,
    as_json: bool,
) -> float:
    """Print one game's line (or JSON record) and its forfeits; returns the first bot's points."""
    pts = points_for_first(record, order)
    if as_json:
        print(json.dumps(record.to_json()))
    else:
        seating = ", ".join(f"{s}:{names[b]}" for s, b in enumerate(order))
        outcome = {1.0: f"{names[0]} wins", 0.5: "draw", 0.0: f"{names[1]} wins"}[pts]
        print(f"game {i + 1} seed {seed} [{seating}] ranks {record.ranks}: ", end="")
        print(f"{outcome} ({record.reason})", flush=True)
    for seat, rec in enumerate(record.seat_records):
        if rec.status is SeatStatus.OK:
            continue
        key = f"{names[order[seat]]} {rec.status}"
        statuses[key] = statuses.get(key, 0) + 1
        if not as_json:
            # Bot text never reaches the terminal raw (escape sequences, carriage returns).
            print(f"    seat {seat} ({names[order[seat]]}): {rec.status}: {clean_text(rec.detail)}")
            for text in clean_text(rec.stderr).strip().splitlines()[-5:]:
                print(f"    | {text}")
    return pts


def _report_total(points: list[float], names: list[str], statuses: dict[str, int]) -> None:
    wins, draws = points.count(1.0), points.count(0.5)
    stats = summary(points)
    print(
        f"{names[0]} vs {names[1]}: +{wins} ={draws} -{len(points) - wins - draws} "
        f"score {stats['score'] * 100:.1f}% "
        f"Elo {_fmt_elo(stats['elo'])} (95%: {_fmt_elo(stats['elo_low'])} .. {_fmt_elo(stats['elo_high'])})"
    )
    for key, count in sorted(statuses.items()):
        print(f"forfeits: {key} in {plural(count, 'game')}")


# Prepares a bot path before play (the kit builds a folder whose bot.json names a build);
# returns the game the bot says it plays, or None.
Prepare = Callable[[Path], str | None]


def _game_named(args: argparse.Namespace, parser: argparse.ArgumentParser, prepare: Prepare | None) -> str:
    """The game: ``--game``, else the one game the bots' bot.json files name (each bot prepared first)."""
    named = set()
    for path in args.bots:
        try:
            game = prepare(path) if prepare else None
        except PackageError as exc:
            parser.exit(2, f"error: {path}: {exc}\n")
        if game:
            named.add(game)
    if args.game:
        return str(args.game)
    if len(named) > 1:
        parser.error(f"the bots name different games ({', '.join(sorted(named))}): give --game")
    if not named:
        parser.error('which game? give --game, or "game" in bot.json')
    return named.pop()


def _match_setup(
    args: argparse.Namespace, parser: argparse.ArgumentParser, prepare: Prepare | None
) -> tuple[str, int, dict[str, object]]:
    """The game, its seat count and its options, checked against the engine (else the usage error)."""
    if args.games < 1:
        parser.error("--games must be at least 1")
    game = _game_named(args, parser, prepare)
    try:
        engine = engines.get_engine(game)
    except engines.UnknownEngineError as exc:
        parser.error(str(exc))
    seats = args.seats or engine.default_seats()
    options = dict(args.option)
    try:
        engine.validate_options(options, seats)
    except engines.InvalidOptionsError as exc:
        parser.error(str(exc))
    return game, seats, options


def infrastructure_report(exc: InfrastructureError) -> None:
    """The machine's failure on stderr, with the hint that fits it (never bubblewrap's when it ran)."""
    print(f"error: {exc}", file=sys.stderr)
    if isinstance(exc, ExternalKillError):
        note = "note: something outside the sandbox killed or stopped a bot; the game says nothing about the bots"
        print(note, file=sys.stderr)
    elif isinstance(exc, SandboxUnavailableError) and not isinstance(exc, SlotRangeConflictError):
        print("hint: install bubblewrap, or pass --allow-unsandboxed to run bots unprotected", file=sys.stderr)


def main(
    argv: Sequence[str] | None = None, prog: str = "python -m workers.referee.local", prepare: Prepare | None = None
) -> int:
    """Run the command line; returns the process exit status."""
    parser = _parser(prog)
    args = parser.parse_args(argv)
    game, seats, options = _match_setup(args, parser, prepare)
    limits = SandboxLimits.from_env()
    if args.allow_unsandboxed:
        limits = dataclasses.replace(limits, allow_unsandboxed=True)
    clock = Clock(move_ms=args.move_ms, game_ms=args.game_ms, startup_ms=args.startup_ms)
    names = [p.name for p in args.bots]
    if names[0] == names[1]:
        names = [f"{names[0]}#1", f"{names[1]}#2"]
    points: list[float] = []
    statuses: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="arbiter-play-") as scratch:
        try:
            programs = [load_bot(p, Path(scratch)) for p in args.bots]
        except PackageError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        for i in range(args.games):
            order, seed = seat_order(i, seats), args.seed + i
            spec = MatchSpec(
                match_id=f"local-{seed}", engine_id=game, options=options, seed=seed, seats=seats, clock=clock
            )
            try:
                record = play_match(spec, [programs[b] for b in order], limits=limits)
            except InfrastructureError as exc:
                sys.stderr.write("\n" if args.games > 1 else "")
                infrastructure_report(exc)
                return 3
            if args.games > 1:
                sys.stderr.write("\r\033[K")
            points.append(_report_game(i, seed, record, order, names, statuses, as_json=args.json))
            if args.games > 1:
                progress(i + 1, args.games)
    if args.games > 1:
        sys.stderr.write("\n")
    _report_total(points, names, statuses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
