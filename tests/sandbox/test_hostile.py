"""Hostile bots, each a real program run through the real sandbox against the reference random bot.

For every one: the status the protocol prescribes (or a normal match where the
bot merely learns nothing), the random bot never loses by the hostile bot's
doing, no process of any slot survives the match, and the next match on the
same worker runs normally.  Hostile bots report on stderr; ``LEAK:`` lines
mean the sandbox let something through.
"""

from __future__ import annotations

import json
import shutil
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.referee.support import REPO, make_limits, random_bot, survivors
from workers.match import Clock, MatchRecord, MatchSpec
from workers.referee.play import play_match
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.start import BotProgram

BOTS = Path(__file__).parent / "bots"
SECRET = "hunter2-do-not-leak-7f3a"
OTHER_SECRET = "OTHER-BOT-SECRET"
CLOCK = Clock(move_ms=400, game_ms=8000, startup_ms=4000)


@dataclass
class Case:
    bot: str
    statuses: tuple[str, ...]  # acceptable statuses of the hostile seat
    check: Callable[[MatchRecord, dict[str, Any]], None] | None = None
    options: dict[str, Any] = field(default_factory=lambda: {"target": 12})
    limits: dict[str, Any] = field(default_factory=dict)
    clock: Clock = CLOCK
    max_seconds: float = 20.0


def lines(record: MatchRecord, tag: str) -> list[str]:
    return [x.split(":", 1)[1] for x in record.seat_records[0].stderr.splitlines() if x.startswith(tag + ":")]


def no_leak(record: MatchRecord, ctx: dict[str, Any]) -> None:
    stderr = record.seat_records[0].stderr
    assert "LEAK:" not in stderr, stderr[:3000]
    assert SECRET not in stderr and OTHER_SECRET not in stderr


def check_net(record: MatchRecord, ctx: dict[str, Any]) -> None:
    no_leak(record, ctx)
    assert lines(record, "UNIX") == ["ok"]  # local sockets still work
    assert len(lines(record, "BLOCKED")) >= 8


def check_files(record: MatchRecord, ctx: dict[str, Any]) -> None:
    no_leak(record, ctx)
    assert lines(record, "PPID") == ["1"]  # the parent is the sandbox's own init, not the worker
    env = lines(record, "ENV")[0]
    assert "ARBITER" not in env and "DJANGO" not in env
    # /arbiter holds the game engines (read-only), for bots that look ahead.
    root = ["arbiter", "bin", "bot", "dev", "etc", "lib", "lib64", "proc", "sbin", "tmp", "usr"]
    assert lines(record, "ROOT") == [str(root)]


def check_writes(record: MatchRecord, ctx: dict[str, Any]) -> None:
    no_leak(record, ctx)
    assert lines(record, "OK") == ["tmp"]
    assert (ctx["bot_dir"] / "main.py").read_bytes() == (BOTS / "writes.py").read_bytes()
    assert not (ctx["bot_dir"] / "new_file").exists() and not (REPO / "pwned").exists()


def check_fill(record: MatchRecord, ctx: dict[str, Any]) -> None:
    limits = ctx["limits"]
    assert 0 < int(lines(record, "FILLED_TMP")[0]) <= limits.tmp_mb << 20
    assert 0 < int(lines(record, "FILLED_SHM")[0]) <= limits.shm_mb << 20


def check_forks(record: MatchRecord, ctx: dict[str, Any]) -> None:
    assert 0 < int(lines(record, "FORKS")[0]) < ctx["limits"].processes


def check_threads(record: MatchRecord, ctx: dict[str, Any]) -> None:
    assert 0 < int(lines(record, "THREADS")[0]) < ctx["limits"].processes


def check_stderr_kept(record: MatchRecord, ctx: dict[str, Any]) -> None:
    assert 60_000 < len(record.seat_records[0].stderr.encode()) <= 64 * 1024


def check_cpu(record: MatchRecord, ctx: dict[str, Any]) -> None:
    assert "CPU" in record.seat_records[0].detail


def check_not_memory(record: MatchRecord, ctx: dict[str, Any]) -> None:
    assert "signal 11" in record.seat_records[0].detail


def check_syscalls(record: MatchRecord, ctx: dict[str, Any]) -> None:
    no_leak(record, ctx)
    results = dict(x.split("=", 1) for x in lines(record, "SYSCALL"))
    assert results and all(v.startswith("-1 ") for v in results.values()), results


CASES = [
    Case("net", ("ok",), check_net),
    Case("files", ("ok",), check_files),
    Case("writes", ("ok",), check_writes),
    Case("fill", ("ok",), check_fill),
    Case("forkbomb", ("ok",), check_forks),
    Case("forkbomb_spin", ("ok", "timeout")),
    Case("threads", ("ok",), check_threads),
    Case("memory", ("memory_limit",), limits={"memory_mb": 256}, clock=Clock(3000, 8000, 4000)),
    # 8 x 150 MiB, each under the 256 MiB per-process limit: caught by the total.
    Case("memory_fork", ("memory_limit",), options={"target": 10_000}, limits={"memory_mb": 256}),
    Case("spin", ("timeout",)),
    Case("cpu_hog", ("timeout",), check_cpu, {"target": 100_000}, {"cpu_seconds": 1}, Clock(400, 60_000, 4000)),
    Case("sleeper", ("timeout",)),
    Case("no_newline", ("output_limit",)),
    Case("stderr_flood", ("ok",), check_stderr_kept),
    Case("bad_json", ("protocol_error",)),
    Case("illegal", ("illegal_move",)),
    Case("quitter", ("crash",)),
    Case("suicide", ("crash",), check_not_memory),
    Case("close_stdout", ("crash",)),
    Case("daemon", ("ok",)),
    Case("killer", ("ok",)),
    Case("syscalls", ("ok",), check_syscalls),
    # The first turn is ~300 KiB, far beyond a pipe's buffer, and the bot never reads it.
    Case("no_read", ("timeout",), options={"target": 12, "extra": 3000, "pad": 90}),
]


@pytest.fixture
def listener() -> Any:
    """A TCP listener on the host's loopback that a bot must not reach."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    yield server.getsockname()[1]
    server.close()


def hostile(tmp_path: Path, name: str, params: dict[str, Any]) -> BotProgram:
    directory = tmp_path / name
    directory.mkdir()
    shutil.copy(BOTS / f"{name}.py", directory / "main.py")
    shutil.copy(BOTS / "arbiter_common.py", directory / "arbiter_common.py")
    (directory / "params.json").write_text(json.dumps(params))
    return BotProgram(directory=directory, command=("python3", "main.py"))


@pytest.mark.parametrize("case", CASES, ids=[c.bot for c in CASES])
def test_hostile_bot(
    case: Case, tmp_path: Path, runtime: Path, limits: SandboxLimits, listener: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Secrets in the worker's environment must never reach a bot.
    monkeypatch.setenv("ARBITER_TEST_SECRET", SECRET)
    monkeypatch.setenv("DJANGO_SECRET_KEY", SECRET)
    limits = make_limits(runtime, **case.limits)
    other = random_bot(tmp_path / "random")
    (other.directory / "secret_strategy.txt").write_text(OTHER_SECRET)
    params = {
        "port": listener,
        "project_files": [str(REPO / "pyproject.toml"), str(REPO / "tournaments" / "settings.py"), str(REPO)],
        "project_dir": str(REPO),
        "runtime": str(runtime),
        "other_bot": str(other.directory),
    }
    bot = hostile(tmp_path, case.bot, params)
    started = time.monotonic()
    spec = MatchSpec(match_id="", engine_id="count-test", options=case.options, seed=7, seats=2, clock=case.clock)
    record = play_match(spec, [bot, other], limits=limits)
    elapsed = time.monotonic() - started
    seat = record.seat_records[0]
    assert seat.status in case.statuses, (record.reason, seat.stderr[-2000:])
    assert record.seat_records[1].status == "ok", record.reason
    if seat.status != "ok":
        assert record.ranks == [2, 1]
    assert survivors() == {}
    assert elapsed < case.max_seconds
    if case.check:
        case.check(record, {"limits": limits, "bot_dir": bot.directory})
    # The next match on this worker is not disturbed by anything the hostile bot did.
    spec = MatchSpec(match_id="", engine_id="count-test", options={"target": 6}, seed=1, seats=2, clock=CLOCK)
    again = play_match(spec, [random_bot(tmp_path / "r2"), other], limits=limits)
    assert [s.status for s in again.seat_records] == ["ok", "ok"]
    assert survivors() == {}
