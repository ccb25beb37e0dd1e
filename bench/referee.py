"""What the referee and the sandbox cost, against the bare minimum, in one run.

1. Per move: a long match between two random bots in the sandbox, less a
   one-move match (start-up and teardown), divided by its moves; against a
   raw pipe round trip with a tiny echo child (one line out, one line back).
   Both are the best of a few runs: the machine's other load only adds noise.
2. Start-up: starting ``python3 -c pass`` in a full sandbox (slot, control
   group, copy, mounts, the gated launcher, setpriv, bwrap, seccomp) and
   waiting for it to exit; against the same command as a bare subprocess,
   the two alternating, both on the same CPU with the CPU weight of a bot on
   move.  Each part of the sandboxed start is shown as well, with and without
   launchers started ahead of time (ARBITER_SANDBOX_WARM; where the worker
   mounts, a waiting launcher's sandbox is built up to the bot).  With launchers
   waiting, ``--rounds`` rounds of such alternating starts give the warm/bare
   ratio's min, median and max (target: median <= 1.3); before each start,
   sandboxed or bare, the run waits until the pool is full and its sandboxes
   built (``warm.settle``), so that a warm start is one that meets a built
   sandbox and no start shares the CPU with the next one's build.

    python -m bench.referee [--moves 4000] [--starts 20] [--trips 5000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import engines
from bench._common import verdict
from engines.base import Engine, IllegalMoveError, Result, State
from kit import REFERENCE_BOTS
from workers.match import Clock, MatchSpec
from workers.referee.play import play_match
from workers.sandbox import group, launcher, start, warm
from workers.sandbox.cgroups import current_group, detect
from workers.sandbox.cpus import lease_cpu
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.start import BotProgram, capabilities, sandbox_available, start_bot

PYTHON = "/usr/bin/python3"
RANDOM_BOT = REFERENCE_BOTS / "random_bot.py"
# A warm sandboxed start against a bare one of the same command, same CPU and weight (median of the rounds).
TARGET_WARM_RATIO = 1.3
# The longest a start waits for the launchers' pool to be full and built (warm.settle).
SETTLE_S = 5.0
ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()\n"


class _Race(State):
    """Seats alternate saying "a" or "b" until ``moves`` moves are made; the last mover wins."""

    def __init__(self, engine: Engine, moves: int) -> None:
        self.engine, self.options, self.seed, self.seats, self.ply = engine, {"moves": moves}, 0, 2, 0

    def to_move(self) -> int | None:
        return None if self.is_terminal() else self.ply % 2

    def legal_moves(self) -> list[str]:
        return [] if self.is_terminal() else ["a", "b"]

    def apply(self, move: str) -> None:
        if move not in ("a", "b") or self.is_terminal():
            raise IllegalMoveError(move)
        self.ply += 1

    def is_terminal(self) -> bool:
        return self.ply >= self.options["moves"]

    def result(self) -> Result | None:
        last = (self.ply - 1) % 2
        return Result(ranks=(1, 2) if last == 0 else (2, 1), reason="done") if self.is_terminal() else None

    def observation(self, seat: int) -> dict[str, Any]:
        return {"ply": self.ply}

    def public_observation(self) -> dict[str, Any]:
        return {"ply": self.ply}

    def to_json(self) -> dict[str, Any]:
        return {"ply": self.ply}

    def clone(self) -> State:
        other = _Race(self.engine, self.options["moves"])
        other.ply = self.ply
        return other


class _RaceEngine(Engine):
    id = "bench-race"
    name = "Race (bench only)"
    version = "1"

    def new_state(self, options: Mapping[str, Any] | None = None, seed: int = 0, seats: int | None = None) -> State:
        return _Race(self, int((options or {}).get("moves", 1)))

    def validate_options(self, options: Mapping[str, Any] | None, seats: int | None = None) -> dict[str, Any]:
        return dict(options or {})

    def state_from_json(self, data: Mapping[str, Any]) -> State:
        raise NotImplementedError


def pipe_round_trip_us(trips: int) -> float:
    """Microseconds per line sent to an echo child and read back."""
    child = subprocess.Popen([PYTHON, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin and child.stdout
    line = (json.dumps({"type": "turn", "ply": 1, "legal_moves": ["a", "b"]}) + "\n").encode()
    for _ in range(100):  # warm up
        child.stdin.write(line)
        child.stdin.flush()
        child.stdout.readline()
    start = time.perf_counter()
    for _ in range(trips):
        child.stdin.write(line)
        child.stdin.flush()
        child.stdout.readline()
    elapsed = time.perf_counter() - start
    child.stdin.close()
    child.wait()
    return elapsed / trips * 1e6


def referee_move_us(moves: int, limits: SandboxLimits) -> tuple[float, float]:
    """(microseconds per move, seconds for a one-move match) for two sandboxed random bots."""
    with tempfile.TemporaryDirectory() as tmp:
        bot_dir = Path(tmp) / "bot"
        bot_dir.mkdir()
        (bot_dir / "main.py").write_bytes(RANDOM_BOT.read_bytes())
        bot = BotProgram(bot_dir, ("python3", "main.py"))
        clock = Clock(move_ms=5000, game_ms=3_600_000, startup_ms=10_000)

        def timed(n: int) -> float:
            start = time.perf_counter()
            spec = MatchSpec(match_id="", engine_id="bench-race", options={"moves": n}, seed=0, seats=2, clock=clock)
            play_match(spec, [bot, bot], limits=limits)
            return time.perf_counter() - start

        timed(1)  # warm caches
        short = min(timed(1) for _ in range(3))
        long = timed(moves)
    return (long - short) / (moves - 1) * 1e6, short


@contextlib.contextmanager
def like_a_bot(limits: SandboxLimits, cpu: int | None) -> Any:
    """Run this thread (and the bare starts it makes) where a bot runs: its CPU, and a CPU group
    of a bot on move inside the bots' group.  Otherwise, on a busy machine, the bare start would
    compete at an ordinary weight while the sandboxed one has the bots' weight, and lose.
    """
    support = detect(limits.cgroups) if start.uses_cgroups(limits) else None
    if support is None:
        yield
        return
    controllers = ("cpu", "cpuacct") if support.version == 1 else ("",)
    made, home = [], []
    tid = str(threading.get_native_id())
    for name in controllers:
        base = support.bases[name]
        bench_group = base / f"bench-{os.getpid()}"
        bench_group.mkdir(exist_ok=True)
        made.append(bench_group)
        own = current_group(name)
        assert own is not None
        home.append(own)
        (bench_group / ("tasks" if support.version == 1 else "cgroup.threads")).write_text(tid)
    old_affinity = os.sched_getaffinity(0)
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    try:
        yield
    finally:
        os.sched_setaffinity(0, old_affinity)
        for bench_group, own in zip(made, home, strict=True):
            (own / ("tasks" if support.version == 1 else "cgroup.threads")).write_text(tid)
            with contextlib.suppress(OSError):  # a child of this thread may still be in it
                bench_group.rmdir()


def start_ms(starts: int, limits: SandboxLimits) -> tuple[float, float, dict[str, float]]:
    """(sandboxed, bare) median milliseconds to start python3 -c pass and see it exit, and the parts.

    Sandboxed and bare starts alternate, so that the machine's other load weighs on both alike.
    The parts are the medians of each step of ``start_bot`` (timed by wrapping its helpers;
    a step that only some starts take is the median of those), plus the end (kill, the
    kernel's confirmation that the group is empty, cleanup), which is not part of the start.
    """
    parts: dict[str, list[float]] = {}

    def timed(owner: Any, name: str, label: str) -> Any:
        inner = getattr(owner, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                parts.setdefault(label, []).append(time.perf_counter() - t)

        setattr(owner, name, wrapper)
        return inner

    originals = [
        (start, "_cold_launcher", timed(start, "_cold_launcher", "no launcher waiting: slot, group, spawn, move")),
        (group.SlotGroup, "attach", timed(group.SlotGroup, "attach", "  of which the move into the group")),
        (launcher, "_make_workdir", timed(launcher, "_make_workdir", "copy, fresh /tmp, /dev/shm and view mounts")),
        (group.SlotGroup, "start", timed(group.SlotGroup, "start", "group counters, weight, CPU")),
        (launcher, "hand_out", timed(launcher, "hand_out", "hand the bot to its launcher (all of the above)")),
        (launcher, "_wait_ready", timed(launcher, "_wait_ready", "  of which waiting for a sandbox built ahead")),
        (launcher, "copy_bot", timed(launcher, "copy_bot", "  of which the copy")),
    ]
    lease = lease_cpu(limits.lock_path()) if limits.pin_cpu and start.uses_cgroups(limits) else None
    sandboxed, bare, ends = [], [], []
    try:
        with tempfile.TemporaryDirectory() as tmp, like_a_bot(limits, lease.cpu if lease else None):
            program = BotProgram(Path(tmp), (PYTHON, "-c", "pass"))
            for _ in range(starts):
                # Launchers waiting: each start (and each bare one) waits for the pool's sandboxes to be
                # built first, so a warm start meets a built one and neither competes with the next build.
                warm.settle(SETTLE_S)
                t = time.perf_counter()
                proc = start_bot(program, limits, cpu_seconds=10, cpu=lease.cpu if lease else None)
                proc.wait(10.0)
                sandboxed.append(time.perf_counter() - t)
                t = time.perf_counter()
                proc.kill()
                proc.cleanup()
                ends.append(time.perf_counter() - t)
                warm.settle(SETTLE_S)
                t = time.perf_counter()
                subprocess.run([PYTHON, "-c", "pass"], check=True)
                bare.append(time.perf_counter() - t)
    finally:
        for owner, name, inner in originals:
            setattr(owner, name, inner)
        if lease is not None:
            lease.release()
    med = lambda xs: sorted(xs)[len(xs) // 2] * 1000  # noqa: E731
    breakdown = {f"{label} ({len(times)}x)": med(times) for label, times in parts.items()}
    breakdown["end: kill, group empty, cleanup (not in the start)"] = med(ends)
    return med(sandboxed), med(bare), breakdown


def main(argv: list[str] | None = None) -> int:
    """Run the three measurements and print them with their ratios."""
    parser = argparse.ArgumentParser(prog="python -m bench.referee", description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=4000)
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--trips", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of warm and bare starts (odd)")
    args = parser.parse_args(argv)
    with contextlib.suppress(ValueError):  # already registered when called twice in one process
        engines.register(_RaceEngine())
    limits = SandboxLimits.from_env()
    sandboxed = sandbox_available(limits)
    print(f"sandbox: {'bubblewrap' if sandboxed else 'NONE (unsandboxed fallback)'}")
    # Wake-ups between processes depend on which cores they land on: keep the best of a few runs.
    trip = min(pipe_round_trip_us(args.trips) for _ in range(3))
    move, short = min(referee_move_us(args.moves, limits) for _ in range(2))
    # The same starts without launchers waiting (every start pays the spawn and the move into
    # its group), then as configured: the effect of ARBITER_SANDBOX_WARM, in one run.
    cold, cold_bare, cold_parts = start_ms(args.starts, dataclasses.replace(limits, warm=0))
    warm.close_all()
    # Rounds of warm and bare starts, each round interleaved: the ratio's spread shows the noise.
    rounds = [start_ms(args.starts, limits) for _ in range(args.rounds)]
    ratios = sorted(boxed / bare for boxed, bare, _ in rounds)
    boxed, bare, breakdown = sorted(rounds, key=lambda r: r[0] / r[1])[len(rounds) // 2]
    print(f"raw pipe round trip (echo child, {args.trips} trips): {trip:8.1f} us")
    print(f"referee per move (2 sandboxed random bots, {args.moves} moves): {move:8.1f} us  ratio {move / trip:5.1f}x")
    print(f"sandbox start-up, python3 -c pass, no launchers waiting (median of {args.starts}): {cold:8.1f} ms  "
          f"ratio {cold / cold_bare:5.2f}x (bare {cold_bare:.1f} ms)")  # fmt: skip
    print(f"sandbox start-up, python3 -c pass (median of {args.starts}): {boxed:8.1f} ms")
    print(f"bare subprocess start-up, python3 -c pass (median of {args.starts}): {bare:8.1f} ms  "
          f"ratio {boxed / bare:5.2f}x")  # fmt: skip
    print(f"warm start / bare start, same CPU and weight ({args.rounds} rounds of {args.starts} interleaved): "
          f"min {ratios[0]:.2f} median {ratios[len(ratios) // 2]:.2f} max {ratios[-1]:.2f} (target <= "
          f"{TARGET_WARM_RATIO}): {verdict(ratios[len(ratios) // 2] <= TARGET_WARM_RATIO)}")  # fmt: skip
    print(f"a one-move match, start to finish (2 bots): {short * 1000:8.1f} ms")
    for title, table in (("no launchers waiting", cold_parts), (f"ARBITER_SANDBOX_WARM={limits.warm}", breakdown)):
        print(f"sandbox start-up, median of each part ({title}):")
        for label, ms in table.items():
            print(f"    {label:60s} {ms:8.2f} ms")
    caps = capabilities(limits)
    print(f"control groups: {caps['cgroups']['detail']}; tmpfs inode cap: {caps['tmpfs_inode_cap']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
