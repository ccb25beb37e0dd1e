"""``arbiter check``: the server's package checks, then a few real games, with mistakes in plain words.

The package is archived and validated by ``workers.packages.archive`` exactly as an
upload is, unpacked as a worker unpacks it, and played through the referee and
sandbox the service uses against the reference bots shipped with the kit (``kit/bots``).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import engines
from kit import REFERENCE_BOTS
from kit.packing import bot_prepare, package_read
from workers.match import Clock, MatchSpec, SeatStatus
from workers.packages.archive import PackageError, inspect_package, program_from_directory, unpack_package
from workers.referee.play import play_match
from workers.referee.text import clean_text, plural
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.start import BotProgram

# What each forfeit means for the author, and what usually causes it.
ADVICE = {
    SeatStatus.TIMEOUT: "did not answer a turn in time: flush stdout after every answer, and keep each "
    "move under move_ms of CPU time",
    SeatStatus.ILLEGAL_MOVE: "answered a move that is not in legal_moves (copy the string exactly)",
    SeatStatus.PROTOCOL_ERROR: 'broke the protocol: answer `start` with {"type": "ready"} and each turn with '
    'one {"move": ...} line, and write nothing else to stdout (debug output belongs on stderr)',
    SeatStatus.OUTPUT_LIMIT: "wrote too much to stdout (an answer over 64 KiB, or over 4 MiB in the match)",
    SeatStatus.CRASH: "stopped before the game was over (it exited, was killed, or closed its stdin or stdout)",
    SeatStatus.MEMORY_LIMIT: "ran out of memory (the limit is for all its processes together)",
    SeatStatus.STARTUP_TIMEOUT: 'did not answer `start` with {"type": "ready"} in time (startup_ms)',
}


@dataclass
class CheckReport:
    """What ``check`` found: the package, each game's outcome for the author's bot, and its mistakes."""

    command: tuple[str, ...] = ()
    games: int = 0
    points: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the package is valid and the bot played every game by the rules."""
        return bool(self.command) and not self.problems


def _opponents() -> dict[str, BotProgram]:
    if not REFERENCE_BOTS.is_dir():
        raise PackageError(f"the reference bots are not at {REFERENCE_BOTS}: the kit is installed without them")
    return {
        "random": BotProgram(directory=REFERENCE_BOTS, command=("python3", "random_bot.py")),
        "greedy": program_from_directory(REFERENCE_BOTS / "greedy"),
    }


def _package(path: Path, game: str | None, say: Callable[[str], None]) -> tuple[str, bytes, str]:
    """The bot built (a folder whose bot.json names a build), archived and checked as the server does.

    Returns (file name, bytes, game); ``path`` is a folder or a single file (a ``.py``, an archive),
    as an upload may be.  PackageError with what is wrong.
    """
    named = bot_prepare(path, say)
    filename, data = package_read(path)
    info = inspect_package(data, filename)
    sizes = f"{plural(info.files, 'file')}, {plural(info.unpacked_bytes, 'byte')}"
    say(f"package: ok ({sizes}, runs {' '.join(info.command)})")
    game = game or named
    if not game:
        where = "a single file has no bot.json" if path.is_file() else 'or "game" in bot.json'
        raise PackageError(f"which game? give --game ({where})")
    return filename, data, game


def bot_check(
    *,
    directory: Path,
    game: str | None = None,
    games: int = 2,
    limits: SandboxLimits | None = None,
    clock: Clock | None = None,
    say: Callable[[str], None] = print,
) -> CheckReport:
    """Build, validate and play the bot at ``directory`` (a folder or a single file); ``say`` gets each line.

    ``games`` games are played against each reference bot, the bot taking each seat in turn.
    InfrastructureError when the sandbox cannot run at all (the machine's problem, not the bot's).
    """
    report = CheckReport()
    try:
        filename, data, game = _package(Path(directory), game, say)
        engine = engines.get_engine(game)
    except (PackageError, engines.UnknownEngineError) as exc:
        report.problems.append(f"package: {exc}")
        say(f"package: refused: {exc}")
        return report
    with tempfile.TemporaryDirectory(prefix="arbiter-check-") as scratch:
        mine = unpack_package(data, filename, Path(scratch) / "bot")
        report.command = mine.command
        _play_games(
            report,
            mine,
            engine_id=game,
            seats=engine.default_seats(),
            games=games,
            limits=limits or SandboxLimits.from_env(),
            clock=clock or Clock(),
            say=say,
        )
    verdict = "ready to upload" if report.ok else f"{plural(len(report.problems), 'problem')} to fix"
    say(f"{plural(report.games, 'game')}, score {report.points:g}/{report.games}: {verdict}")
    return report


def _play_games(
    report: CheckReport,
    mine: BotProgram,
    *,
    engine_id: str,
    seats: int,
    games: int,
    limits: SandboxLimits,
    clock: Clock,
    say: Callable[[str], None],
) -> None:
    """``games`` games against each reference bot, the author's bot in each seat in turn."""
    for name, other in _opponents().items():
        for i in range(games):
            my_seat = i % seats
            spec = MatchSpec(
                match_id=f"check-{name}-{i}", engine_id=engine_id, options={}, seed=i + 1, seats=seats, clock=clock
            )
            record = play_match(spec, [mine if s == my_seat else other for s in range(seats)], limits=limits)
            report.games += 1
            best_other = min(r for s, r in enumerate(record.ranks) if s != my_seat)
            rank = record.ranks[my_seat]
            report.points += 1.0 if rank < best_other else 0.5 if rank == best_other else 0.0
            outcome = "won" if rank < best_other else "drew" if rank == best_other else "lost"
            moves = len(record.moves)
            say(
                f"game {report.games} vs {name}, seat {my_seat}: {outcome} in {plural(moves, 'move')} ({record.reason})"
            )
            rec = record.seat_records[my_seat]
            if rec.status is SeatStatus.OK:
                continue
            problem = f"vs {name}, seat {my_seat}: your bot {ADVICE[rec.status]}"
            report.problems.append(problem)
            say(f"  problem: {problem}")
            if rec.detail:
                say(f"  the referee saw: {clean_text(rec.detail)}")
            for line in clean_text(rec.stderr).strip().splitlines()[-5:]:
                say(f"  stderr | {line}")
