"""The referee: plays one match between sandboxed bots over the JSON-lines protocol.

One thread, one ``poll`` loop over every bot's three pipes (all non-blocking):
writes are buffered and go out only when a pipe is writable, so a bot that
never reads cannot stall the referee, and stderr is always drained so a bot
that floods it cannot block either.  The first fault of any seat ends the
match as that seat's forfeit (see ``/work/shared/spec/protocol.md`` and
``docs/bots.md``); everything a bot started is killed when the match ends.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import time
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import engines
from workers.sandbox import (
    BotProcess,
    BotProgram,
    InfrastructureError,
    SandboxLimits,
    SandboxUnavailableError,
    become_subreaper,
    start_bot,
)

__all__ = [
    "BotProgram",
    "Clock",
    "InfrastructureError",
    "MatchRecord",
    "MoveRecord",
    "SandboxLimits",
    "SandboxUnavailableError",
    "SeatRecord",
    "play_match",
]

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
MAX_LINE = 64 * 1024  # longest answer line (protocol)
STDERR_KEPT = 64 * 1024  # first bytes of stderr kept per bot
END_GRACE_S = 0.25  # after `end`: time for bots to exit by themselves before the kill
STATUSES = (
    "ok",
    "timeout",
    "illegal_move",
    "protocol_error",
    "output_limit",
    "crash",
    "memory_limit",
    "startup_timeout",
)
_SAMPLE_EVERY_S = 0.1
NICE_OFF_MOVE = 19


@dataclass(frozen=True)
class Clock:
    """Time limits of a match, in milliseconds (see the protocol's Time section)."""

    move_ms: int = 1000
    game_ms: int = 60_000
    startup_ms: int = 10_000


@dataclass
class SeatRecord:
    """How one seat's bot fared: its status, its stderr (first 64 KiB) and what it used."""

    seat: int
    status: str = "ok"
    stderr: str = ""
    cpu_ms: int | None = None
    peak_rss_kb: int | None = None
    name: str | None = None
    version: str | None = None
    detail: str = ""  # a human explanation of a non-ok status


@dataclass
class MoveRecord:
    """One move as played: who, what, and how long the answer took."""

    seat: int
    move: str
    ms: int


@dataclass
class MatchRecord:
    """Everything the service stores about a finished match."""

    engine_id: str
    engine_version: str
    seats: int
    options: dict[str, Any]
    seed: int
    ranks: list[int]
    scores: list[Any] | None
    reason: str
    seat_records: list[SeatRecord]
    moves: list[MoveRecord]
    match_id: str = ""
    sandboxed: bool = True

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of the whole record."""
        return asdict(self)

    def replay(self) -> engines.Replay:
        """The moves as an engine replay (forfeited matches stop at the last legal move)."""
        return engines.Replay(
            engine_id=self.engine_id,
            engine_version=self.engine_version,
            seats=self.seats,
            options=dict(self.options),
            seed=self.seed,
            moves=[m.move for m in self.moves],
        )


class _Fault(Exception):
    """A seat broke the rules; carries the protocol status."""

    def __init__(self, seat: int, status: str, detail: str) -> None:
        super().__init__(f"seat {seat}: {status}: {detail}")
        self.seat, self.status, self.detail = seat, status, detail


@dataclass
class _Conn:
    """The referee's side of one bot's pipes."""

    seat: int
    proc: BotProcess
    wbuf: bytearray = field(default_factory=bytearray)
    rbuf: bytearray = field(default_factory=bytearray)
    lines: deque[bytes] = field(default_factory=deque)
    stderr: bytearray = field(default_factory=bytearray)
    out_total: int = 0
    out_eof: bool = False
    err_eof: bool = False
    in_closed: bool = False
    expecting: bool = True
    ended: bool = False
    fault: tuple[str, str] | None = None
    last_sample: float = 0.0
    nice: int = 0

    def __post_init__(self) -> None:
        p = self.proc.popen
        assert p.stdin and p.stdout and p.stderr
        self.in_fd, self.out_fd, self.err_fd = p.stdin.fileno(), p.stdout.fileno(), p.stderr.fileno()
        for fd in (self.in_fd, self.out_fd, self.err_fd):
            os.set_blocking(fd, False)


class _Referee:
    def __init__(self, conns: list[_Conn], clock: Clock, output_limit: int, cpu_limit_s: int, memory_mb: int) -> None:
        self.conns = conns
        self.clock = clock
        self.output_limit = output_limit
        self.cpu_limit_s = cpu_limit_s
        self.memory_mb = memory_mb
        self.poller = select.poll()
        self.by_fd: dict[int, tuple[_Conn, str]] = {}
        for c in conns:
            self.poller.register(c.out_fd, select.POLLIN)
            self.poller.register(c.err_fd, select.POLLIN)
            self.by_fd[c.out_fd] = (c, "out")
            self.by_fd[c.err_fd] = (c, "err")
            self.by_fd[c.in_fd] = (c, "in")

    # -- low-level I/O ------------------------------------------------------

    def send(self, c: _Conn, message: dict[str, Any]) -> None:
        if c.in_closed:
            return
        was_empty = not c.wbuf
        c.wbuf += json.dumps(message, separators=(",", ":")).encode() + b"\n"
        self._flush(c)
        if was_empty and c.wbuf and not c.in_closed:
            self.poller.register(c.in_fd, select.POLLOUT)

    def _flush(self, c: _Conn) -> None:
        try:
            while c.wbuf:
                n = os.write(c.in_fd, c.wbuf)
                del c.wbuf[:n]
        except BlockingIOError:
            return
        except OSError:
            # The bot closed its input or exited: a crash (classify() looks at how it ended).
            c.wbuf.clear()
            self._close_input(c)
            if not c.ended:
                self._note_fault(c, "crash", "stopped reading its input")
            return

    def _close_input(self, c: _Conn) -> None:
        if c.in_closed:
            return
        c.in_closed = True
        with contextlib.suppress(KeyError):
            self.poller.unregister(c.in_fd)
        with contextlib.suppress(OSError):
            c.proc.popen.stdin.close()  # type: ignore[union-attr]

    def _read(self, c: _Conn, kind: str) -> None:
        fd = c.out_fd if kind == "out" else c.err_fd
        if c.out_eof if kind == "out" else c.err_eof:
            return
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.poller.unregister(fd)
            if kind == "out":
                c.out_eof = True
                if not c.ended:
                    self._note_fault(c, "crash", "closed its output")
            else:
                c.err_eof = True
            return
        if kind == "err":
            room = STDERR_KEPT - len(c.stderr)
            if room > 0:
                c.stderr += data[:room]
            return
        if c.ended:
            return
        c.out_total += len(data)
        c.rbuf += data
        while True:
            i = c.rbuf.find(b"\n")
            if i < 0:
                break
            line = bytes(c.rbuf[:i])
            del c.rbuf[: i + 1]
            if len(line) > MAX_LINE:
                self._note_fault(c, "output_limit", f"an answer line of {len(line)} bytes (limit {MAX_LINE})")
                return
            c.lines.append(line)
        if len(c.rbuf) > MAX_LINE:
            self._note_fault(c, "output_limit", f"more than {MAX_LINE} bytes without a newline")
        elif c.out_total > self.output_limit:
            self._note_fault(c, "output_limit", f"more than {self.output_limit} bytes of output in the match")
        elif c.lines and not c.expecting:
            self._note_fault(c, "protocol_error", "wrote a line when no answer was expected")

    def _note_fault(self, c: _Conn, status: str, detail: str) -> None:
        if c.fault is None:
            c.fault = (status, detail)

    def pump(
        self, deadline: float, done: Callable[[], bool], stop_on_fault: bool = True, tick: float = _SAMPLE_EVERY_S
    ) -> None:
        """Serve every pipe until ``done()``, a fault (if asked) or ``deadline``.

        ``done`` is checked at least every ``tick`` seconds, also when no pipe has news.
        """
        while not done():
            if stop_on_fault and any(c.fault for c in self.conns):
                return
            now = time.monotonic()
            if now >= deadline:
                return
            for c in self.conns:
                if now - c.last_sample >= _SAMPLE_EVERY_S:
                    c.last_sample = now
                    c.proc.sample()
                    if not c.ended and c.proc.over_memory():
                        self._note_fault(c, "memory_limit", f"its processes held more than {self.memory_mb} MiB")
                        c.proc.kill()
            timeout_ms = max(0, min(int((deadline - now) * 1000) + 1, int(tick * 1000)))
            for fd, _events in self.poller.poll(timeout_ms):
                entry = self.by_fd.get(fd)
                if entry is None:
                    continue
                c, kind = entry
                if kind == "in":
                    self._flush(c)
                    if not c.wbuf and not c.in_closed:
                        self.poller.unregister(fd)
                else:
                    self._read(c, kind)

    # -- faults -------------------------------------------------------------

    def classify(self, c: _Conn) -> tuple[str, str]:
        """Turn a pending fault into its final status: a crash may really be memory or CPU."""
        assert c.fault is not None
        status, detail = c.fault
        if status != "crash":
            return status, detail
        # Give the bot a moment to finish dying so its exit status is known.
        code = c.proc.wait(0.3)
        c.proc.sample()
        limit = c.proc.limit_hit(bytes(c.stderr), self.cpu_limit_s)
        if limit == "memory_limit":
            return limit, f"exceeded the memory limit of {self.memory_mb} MiB"
        if limit == "timeout":
            return limit, f"used up its CPU time limit of {self.cpu_limit_s} s"
        if code is None:
            return "crash", detail  # still running: it closed its output or input
        sig = c.proc.exit_signal()
        return "crash", f"was killed by signal {sig}" if sig else f"exited with status {code}"

    # -- the protocol ---------------------------------------------------------

    def take_answer(self, c: _Conn) -> bytes | None:
        if c.lines:
            line = c.lines.popleft()
            c.expecting = False
            if c.lines:
                raise _Fault(c.seat, "protocol_error", "sent more than one answer")
            return line
        return None

    def startup(self, start_messages: list[dict[str, Any]]) -> list[_Fault]:
        """Send ``start`` to every bot and wait for every ``ready``; returns every seat's fault."""
        deadline = time.monotonic() + self.clock.startup_ms / 1000
        for c, msg in zip(self.conns, start_messages, strict=True):
            self.send(c, msg)
        self.pump(deadline, lambda: all(c.lines or c.fault for c in self.conns), stop_on_fault=False)
        faults = []
        for c in self.conns:
            try:
                line = self.take_answer(c)
                if c.fault is not None:
                    raise _Fault(c.seat, *self.classify(c))
                if line is None:
                    raise _Fault(c.seat, "startup_timeout", f"no ready within {self.clock.startup_ms} ms")
                ready = _parse(line)
                if ready is None or ready.get("type") != "ready":
                    raise _Fault(c.seat, "protocol_error", 'the answer to start was not {"type": "ready"}')
                self.ready_info[c.seat] = (_short(ready.get("name")), _short(ready.get("version")))
            except _Fault as fault:
                faults.append(fault)
        return faults

    ready_info: dict[int, tuple[str | None, str | None]]

    def ask(self, c: _Conn, message: dict[str, Any], budget_ms: int) -> tuple[str, int]:
        """Send a turn and return the answer's move and its time; raises _Fault."""
        # Bots are not paused between turns, but one that is not on move runs at the lowest
        # priority, so a bot spinning (or fork-bombing) in the background cannot starve the
        # bot whose clock is running.
        for other in self.conns:
            want = 0 if other is c else NICE_OFF_MOVE
            if other.nice != want:
                other.proc.set_nice(want)
                other.nice = want
        # Output that arrived unasked since the last answer must not pass for this turn's answer.
        self._read(c, "out")
        if c.lines or c.fault:
            self._note_fault(c, "protocol_error", "wrote a line when no answer was expected")
            raise _Fault(c.seat, *self.classify(c))
        started = time.monotonic()
        c.expecting = True
        self.send(c, message)
        self.pump(started + budget_ms / 1000, lambda: bool(c.lines))
        elapsed_ms = int((time.monotonic() - started) * 1000)
        for other in self.conns:
            if other.fault is not None:
                raise _Fault(other.seat, *self.classify(other))
        line = self.take_answer(c)
        if line is None or elapsed_ms > budget_ms:
            self._crash_behind_timeout(c)
            raise _Fault(c.seat, "timeout", f"no answer within {budget_ms} ms")
        answer = _parse(line)
        move = answer.get("move") if answer is not None else None
        if not isinstance(move, str):
            raise _Fault(c.seat, "protocol_error", 'the answer was not one JSON object with a string "move"')
        return move, elapsed_ms

    def _crash_behind_timeout(self, c: _Conn) -> None:
        """A bot that died or closed its output is a crash even if the clock ran out first.

        Inside bubblewrap the sandbox's own processes keep copies of the bot's pipes, so
        neither an exit nor a closed stdout shows up as end-of-file right away: look at
        the processes themselves.
        """
        self.pump(time.monotonic() + 0.02, lambda: c.out_eof, stop_on_fault=False)
        if c.fault is None and c.proc.poll() is not None:
            self._note_fault(c, "crash", "exited")
        if c.fault is None and c.proc.sandboxed and not c.proc.holds_pipe(c.out_fd):
            self._note_fault(c, "crash", "closed its output")
        if c.fault is not None:
            raise _Fault(c.seat, *self.classify(c))

    def finish(self, end_message: dict[str, Any]) -> None:
        """Send ``end``, close every input, and give the bots a short grace to exit."""
        for c in self.conns:
            # The last look at CPU and memory: a bot that exits by itself after `end` leaves no
            # reliable account (its sandbox's init does not pass its children's times on).
            c.proc.sample()
            c.ended = True
            c.expecting = False
            self.send(c, end_message)
        deadline = time.monotonic() + END_GRACE_S
        self.pump(deadline, lambda: all(not c.wbuf or c.in_closed for c in self.conns), stop_on_fault=False)
        for c in self.conns:
            self._close_input(c)
        # A process's exit makes no pipe event of its own: look often.
        exited = lambda: all(c.proc.poll() is not None for c in self.conns)  # noqa: E731
        self.pump(deadline, exited, stop_on_fault=False, tick=0.002)

    def drain_after_kill(self) -> None:
        """Read what is left in the pipes once every writer is dead (bounded)."""
        deadline = time.monotonic() + 0.5
        self.pump(deadline, lambda: all(c.out_eof and c.err_eof for c in self.conns), stop_on_fault=False)


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):  # deep nesting must not crash the referee
        return None
    return value if isinstance(value, dict) else None


def clean_text(text: str) -> str:
    """Text safe to store anywhere: no NUL characters, no lone surrogates (PostgreSQL refuses both)."""
    return text.encode("utf-8", "replace").decode("utf-8").replace("\x00", "\ufffd")


def _short(value: Any) -> str | None:
    return clean_text(value[:100]) if isinstance(value, str) else None


def forfeit_ranks(teams: list[list[int]], seats: int, failed: set[int]) -> list[int]:
    """Ranks when ``failed`` seats forfeit: their teams last, every other team shares first.

    Numbered like every result, over teams (``engines.team_ranks``): two teams of
    two seats give ``[1, 2, 1, 2]``.  When every team has a failed seat nobody is
    better than anybody: all share first place.
    """
    team_of = [-1] * seats
    for index, team in enumerate(teams):
        for s in team:
            team_of[s] = index
    if -1 in team_of:
        raise ValueError("every seat belongs to a team")
    clean = [0 if any(s in failed for s in team) else 1 for team in teams]
    return list(engines.team_ranks(team_of, clean))


def play_match(
    *,
    engine_id: str,
    options: dict[str, Any],
    seed: int,
    seats: int,
    bots: Sequence[BotProgram],
    clock: Clock = Clock(),
    limits: SandboxLimits | None = None,
    match_id: str = "",
) -> MatchRecord:
    """Play one match and return its record.

    Bot faults are forfeits recorded in the result; problems of the service itself
    (no sandbox, no free slot, a copy that cannot be made) raise InfrastructureError.
    Invalid options, seat counts or bot counts raise ValueError before anything starts.
    """
    engine = engines.get_engine(engine_id)
    full_options = engine.validate_options(options, seats)
    if len(bots) != seats:
        raise ValueError(f"{seats} seats need {seats} bots, got {len(bots)}")
    teams = engine.teams(seats, full_options)
    state = engine.new_state(full_options, seed=seed, seats=seats)
    limits = limits or SandboxLimits.from_env()
    match_id = match_id or uuid.uuid4().hex
    cpu_limit = limits.cpu_limit(clock.startup_ms, clock.game_ms)
    become_subreaper()

    procs: list[BotProcess] = []
    moves: list[MoveRecord] = []
    records = [SeatRecord(seat=s) for s in range(seats)]
    ref: _Referee | None = None
    try:
        for bot in bots:
            procs.append(start_bot(bot, limits, cpu_limit))
        sandboxed = all(p.sandboxed for p in procs)
        if not sandboxed:
            log.warning("match %s runs its bots WITHOUT a sandbox (ARBITER_ALLOW_UNSANDBOXED)", match_id)
        conns = [_Conn(seat=s, proc=p) for s, p in enumerate(procs)]
        ref = _Referee(conns, clock, limits.output_kb * 1024, cpu_limit, limits.memory_mb)
        ref.ready_info = {}
        clock_json = {"move_ms": clock.move_ms, "game_ms": clock.game_ms, "startup_ms": clock.startup_ms}
        starts = [
            {
                "type": "start",
                "protocol": PROTOCOL_VERSION,
                "match": match_id,
                "game": engine_id,
                "options": full_options,
                "seat": s,
                "seats": seats,
                "teams": teams,
                "clock": clock_json,
            }
            for s in range(seats)
        ]
        faults = ref.startup(starts)
        for s, (name, version) in ref.ready_info.items():
            records[s].name, records[s].version = name, version
        game_left = [clock.game_ms] * seats
        if not faults:
            try:
                while not state.is_terminal():
                    seat = state.to_move()
                    assert seat is not None
                    legal = state.legal_moves()
                    budget = min(clock.move_ms, max(game_left[seat], 0))
                    turn = {
                        "type": "turn",
                        "ply": state.ply,
                        "observation": state.observation(seat),
                        "legal_moves": legal,
                        "clock": {"move_ms": clock.move_ms, "game_left_ms": game_left[seat]},
                    }
                    move, ms = ref.ask(conns[seat], turn, budget)
                    game_left[seat] -= ms
                    # Checked here too, so that no bot text ever reaches an engine that is not legal.
                    if move not in legal:
                        raise _Fault(seat, "illegal_move", f"{move[:80]!r} is not a legal move")
                    try:
                        state.apply(move)
                    except engines.IllegalMoveError:
                        raise _Fault(seat, "illegal_move", f"{move[:80]!r} is not a legal move") from None
                    moves.append(MoveRecord(seat=seat, move=move, ms=ms))
            except _Fault as fault:
                faults = [fault]
        if faults:
            failed = {f.seat for f in faults}
            for f in faults:
                records[f.seat].status, records[f.seat].detail = f.status, f.detail
            ranks = forfeit_ranks(teams, seats, failed)
            scores = None
            reason = "; ".join(f"seat {f.seat} forfeited ({f.status}: {f.detail})" for f in faults)
        else:
            result = state.result()
            assert result is not None
            ranks, reason = list(result.ranks), result.reason
            scores = list(result.scores) if result.scores is not None else None
        end: dict[str, Any] = {"type": "end", "result": {"ranks": ranks}, "reason": reason}
        if scores is not None:
            end["result"]["scores"] = scores
        ref.finish(end)
    finally:
        for p in procs:
            p.kill()
        if ref is not None:
            ref.drain_after_kill()
        for p in procs:
            p.cleanup()
    for rec, c in zip(records, ref.conns, strict=True):
        rec.stderr = clean_text(bytes(c.stderr).decode("utf-8", errors="replace"))
        rec.cpu_ms = c.proc.usage.cpu_ms
        rec.peak_rss_kb = c.proc.usage.peak_rss_kb
    return MatchRecord(
        engine_id=engine_id,
        engine_version=engine.version,
        seats=seats,
        options=full_options,
        seed=seed,
        ranks=ranks,
        scores=scores,
        reason=reason,
        seat_records=records,
        moves=moves,
        match_id=match_id,
        sandboxed=sandboxed,
    )
