"""Talking to the bots of one match: their pipes, one poll loop, and the protocol's messages.

One thread, one ``poll`` loop over every bot's three pipes (all non-blocking):
writes are buffered and go out only when a pipe is writable, so a bot that
never reads cannot stall the referee, and stderr is always drained so a bot
that floods it cannot block either.  A seat's first fault is kept and ends
the match as that seat's forfeit (``workers.referee.play``).

The service may stop a match before its end (it was cancelled): when the
``stop`` event it passes is set, the loop raises MatchStopped within a tick,
and the referee kills every bot (``workers.referee.play``).

Time is charged by ``workers.referee.clock``: a bot pays for the CPU time of its own
processes while it is on move, with a wall-clock backstop, and never for time
the referee itself was not running, nor for time the bot could not run (waiting
for a CPU, stopped from outside: ``workers.sandbox.stalls``).  The bot on move gets the CPU; the others
only what it leaves (their control groups' weight, or nice 19 without one).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import select
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from workers.match import Clock, SeatStatus
from workers.referee.clock import BotClock
from workers.referee.text import answer_fault, clean_text, parse_line, quoted, short_text
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.process import BotProcess
from workers.sandbox.start import ExternalKillError, ExternalStopError

__all__ = ["BotPipes", "Conversation", "MatchStopped", "SeatFault", "clean_text", "parse_line"]

MAX_LINE = 64 * 1024  # longest answer line (protocol)
STDERR_KEPT = 64 * 1024  # first bytes of stderr kept per bot
END_GRACE_S = 0.25  # after `end`: time for bots to exit by themselves before the kill
_SAMPLE_EVERY_S = 0.1


class MatchStopped(Exception):
    """The service stopped the match before its end (it was cancelled): no seat is at fault, nothing counts."""


class SeatFault(Exception):
    """A seat broke the rules; carries the protocol status."""

    def __init__(self, seat: int, status: SeatStatus, detail: str) -> None:
        super().__init__(f"seat {seat}: {status}: {detail}")
        self.seat, self.status, self.detail = seat, status, detail


@dataclass
class BotPipes:
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
    fault: tuple[SeatStatus, str] | None = None
    last_sample: float = 0.0

    def __post_init__(self) -> None:
        p = self.proc.popen
        assert p.stdin and p.stdout and p.stderr
        self.in_fd, self.out_fd, self.err_fd = p.stdin.fileno(), p.stdout.fileno(), p.stderr.fileno()
        for fd in (self.in_fd, self.out_fd, self.err_fd):
            os.set_blocking(fd, False)


class Conversation:
    """The referee's side of the protocol with every bot of one match, over their pipes."""

    def __init__(
        self,
        conns: list[BotPipes],
        clock: Clock,
        limits: SandboxLimits,
        cpu_limit_s: int,
        *,
        stop: threading.Event | None = None,
    ) -> None:
        self.conns = conns
        self.stop = stop
        # Once the bots are told the end (or killed), a stop changes nothing: the loop finishes its work.
        self.ending = False
        self.clock = clock
        self.limits = limits
        self.output_limit = limits.output_kb * 1024
        self.cpu_limit_s = cpu_limit_s
        self.memory_mb = limits.memory_mb
        self.ready_info: dict[int, tuple[str | None, str | None]] = {}
        self.poller = select.poll()
        self.by_fd: dict[int, tuple[BotPipes, str]] = {}
        for c in conns:
            self.poller.register(c.out_fd, select.POLLIN)
            self.poller.register(c.err_fd, select.POLLIN)
            self.by_fd[c.out_fd] = (c, "out")
            self.by_fd[c.err_fd] = (c, "err")
            self.by_fd[c.in_fd] = (c, "in")

    # -- low-level I/O ------------------------------------------------------

    def send(self, c: BotPipes, message: dict[str, Any]) -> None:
        if c.in_closed:
            return
        was_empty = not c.wbuf
        c.wbuf += json.dumps(message, separators=(",", ":")).encode() + b"\n"
        self._flush(c)
        if was_empty and c.wbuf and not c.in_closed:
            self.poller.register(c.in_fd, select.POLLOUT)

    def _flush(self, c: BotPipes) -> None:
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
                self._note_fault(c, SeatStatus.CRASH, "stopped reading its input")
            return

    def _close_input(self, c: BotPipes) -> None:
        if c.in_closed:
            return
        c.in_closed = True
        with contextlib.suppress(KeyError):
            self.poller.unregister(c.in_fd)
        with contextlib.suppress(OSError):
            c.proc.popen.stdin.close()  # type: ignore[union-attr]

    def _read(self, c: BotPipes, kind: str) -> None:
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
                    self._note_fault(c, SeatStatus.CRASH, "closed its output")
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
                self._note_fault(c, SeatStatus.OUTPUT_LIMIT, f"an answer line of {len(line)} bytes (limit {MAX_LINE})")
                return
            c.lines.append(line)
        if len(c.rbuf) > MAX_LINE:
            self._note_fault(c, SeatStatus.OUTPUT_LIMIT, f"more than {MAX_LINE} bytes without a newline")
        elif c.out_total > self.output_limit:
            self._note_fault(c, SeatStatus.OUTPUT_LIMIT, f"more than {self.output_limit} bytes of output in the match")
        elif c.lines and not c.expecting:
            self._unasked(c)

    def _unasked(self, c: BotPipes) -> None:
        """The fault of a bot that wrote when no answer was due, naming the line (when one is at hand)."""
        line = f": {quoted(c.lines[0])}" if c.lines else ""
        self._note_fault(c, SeatStatus.PROTOCOL_ERROR, f"wrote a line when no answer was due{line}")

    def _note_fault(self, c: BotPipes, status: SeatStatus, detail: str) -> None:
        if c.fault is None:
            c.fault = (status, detail)

    def pump(
        self,
        done: Callable[[], bool],
        *,
        deadline: float | None = None,
        clocks: Sequence[BotClock] = (),
        stop_on_fault: bool = True,
        tick: float = _SAMPLE_EVERY_S,
    ) -> None:
        """Serve every pipe until ``done()``, a fault (if asked), ``deadline``, or every clock is out.

        ``done`` is checked at least every ``tick`` seconds, also when no pipe has news.  Each
        clock is told after every wait how long the referee meant to wait (``workers.referee.clock``).
        Raises MatchStopped when the service stops the match (before the end only).
        """
        while not done():
            if self.stop is not None and self.stop.is_set() and not self.ending:
                raise MatchStopped("the match was stopped by the service")
            if stop_on_fault and any(c.fault for c in self.conns):
                return
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return
            running = [k for k in clocks if not k.stopped and not k.out()]
            if (clocks and not running) or any(k.stopped_out() for k in running):
                return
            self._sample(now)
            wait = tick if deadline is None else min(tick, deadline - now)
            for k in running:
                wait = min(wait, k.wait_s())
            wait = max(wait, 0.0)
            events = self.poller.poll(math.ceil(wait * 1000))
            for k in running:
                k.update(wait)
            for fd, _events in events:
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

    def _sample(self, now: float) -> None:
        """Every tenth of a second: each bot's usage, and its memory limit (killed when it went over)."""
        for c in self.conns:
            if now - c.last_sample >= _SAMPLE_EVERY_S:
                c.last_sample = now
                c.proc.sample()
                if not c.ended and c.fault is None and c.proc.over_memory():
                    self._note_fault(c, SeatStatus.MEMORY_LIMIT, f"its processes held more than {self.memory_mb} MiB")
                    c.proc.kill()

    # -- faults -------------------------------------------------------------

    def classify(self, c: BotPipes) -> tuple[SeatStatus, str]:
        """Turn a pending fault into its final status: a crash may really be memory or CPU.

        Raises ExternalKillError when the bot died of something outside the sandbox (never a forfeit).
        """
        assert c.fault is not None
        status, detail = c.fault
        if status != SeatStatus.CRASH:
            return status, detail
        # Give the bot a moment to finish dying so its exit status is known.
        code = c.proc.wait(0.3)
        c.proc.sample()
        limit = c.proc.limit_hit(bytes(c.stderr), self.cpu_limit_s)
        if limit is SeatStatus.MEMORY_LIMIT:
            return limit, f"exceeded the memory limit of {self.memory_mb} MiB"
        if limit is SeatStatus.TIMEOUT:
            return limit, f"used up its CPU time limit of {self.cpu_limit_s} s"
        if code is None:
            return SeatStatus.CRASH, detail  # still running: it closed its output or input
        outside = c.proc.killed_from_outside()
        if outside is not None:
            raise ExternalKillError(c.seat, outside)
        sig = c.proc.exit_signal()
        return SeatStatus.CRASH, f"was killed by signal {sig}" if sig else f"exited with status {code}"

    # -- the protocol ---------------------------------------------------------

    def take_answer(self, c: BotPipes, asked: str) -> bytes | None:
        """The one line that answers ``asked`` (``start``, ``its turn``), or None when none came yet.

        SeatFault when more than one line came, naming what the bot actually did: a first line
        that is no answer (debug output on stdout, usually), else a second line.
        """
        if not c.lines:
            return None
        line = c.lines.popleft()
        c.expecting = False
        if c.lines:
            wrong = answer_fault(line, parse_line(line), start=asked == "start")
            if wrong:
                detail = f"its first line in answer to {asked} {wrong}"
            else:
                detail = f"it wrote a second line in answer to {asked}: {quoted(c.lines[0])}"
            raise SeatFault(c.seat, SeatStatus.PROTOCOL_ERROR, detail)
        return line

    def startup(self, start_messages: list[dict[str, Any]]) -> list[SeatFault]:
        """Send ``start`` to every bot and wait for every ``ready``; returns every seat's fault.

        Each bot has ``startup_ms`` of its own CPU time, with the wall-clock backstop.
        """
        startup_ms = self.clock.startup_ms
        clocks = [self._clock(c, startup_ms, self.limits.wall_limit_ms(startup_ms)) for c in self.conns]
        for c, msg in zip(self.conns, start_messages, strict=True):
            self.send(c, msg)

        def all_ready() -> bool:
            for c, k in zip(self.conns, clocks, strict=True):
                if (c.lines or c.fault) and not k.stopped:
                    k.stop(0.0)
            return all(k.stopped for k in clocks)

        self.pump(all_ready, clocks=clocks, stop_on_fault=False)
        for c, k in zip(self.conns, clocks, strict=True):
            if k.stopped_out():
                raise ExternalStopError(c.seat, k.describe_stop())
        faults = []
        for c, k in zip(self.conns, clocks, strict=True):
            try:
                line = self.take_answer(c, "start")
                if c.fault is not None:
                    raise SeatFault(c.seat, *self.classify(c))
                if line is None:
                    raise SeatFault(c.seat, SeatStatus.STARTUP_TIMEOUT, k.describe(startup_ms))
                ready = parse_line(line)
                wrong = answer_fault(line, ready, start=True)
                if ready is None or wrong:
                    raise SeatFault(c.seat, SeatStatus.PROTOCOL_ERROR, f"its answer to start {wrong}")
                self.ready_info[c.seat] = (short_text(ready.get("name")), short_text(ready.get("version")))
            except SeatFault as fault:
                faults.append(fault)
        return faults

    def ask(self, c: BotPipes, message: dict[str, Any], budget_ms: int, wall_ms: int) -> tuple[str, int, int]:
        """Send a turn; return the answer's move, the CPU ms charged and the wall ms used.  Raises SeatFault.

        ``budget_ms`` is the CPU time the bot may use, ``wall_ms`` the real time (backstop).
        """
        # Bots are not paused between turns, but one that is not on move gets only the CPU the
        # bot on move leaves, so background work (a fork bomb, a stderr flood) cannot slow it.
        for other in self.conns:
            other.proc.set_on_move(other is c)
        # Output that arrived unasked since the last answer must not pass for this turn's answer.
        self._read(c, "out")
        if c.lines or c.fault:
            self._unasked(c)
            raise SeatFault(c.seat, *self.classify(c))
        clock = self._clock(c, budget_ms, wall_ms)
        c.expecting = True
        self.send(c, message)
        self.pump(lambda: bool(c.lines), clocks=[clock])
        clock.stop(0.0)
        if clock.stopped_out():
            raise ExternalStopError(c.seat, clock.describe_stop())
        for other in self.conns:
            if other.fault is not None:
                raise SeatFault(other.seat, *self.classify(other))
        line = self.take_answer(c, "its turn")
        if line is None or clock.out():
            self._crash_behind_timeout(c)
            raise SeatFault(c.seat, SeatStatus.TIMEOUT, clock.describe(budget_ms))
        answer = parse_line(line)
        wrong = answer_fault(line, answer, start=False)
        if answer is None or wrong:
            raise SeatFault(c.seat, SeatStatus.PROTOCOL_ERROR, f"its answer {wrong}")
        return answer["move"], clock.charged_ms, clock.wall_ms

    def _clock(self, c: BotPipes, budget_ms: int, wall_ms: int) -> BotClock:
        """A clock for ``c``'s next stretch, blind to the time its bot could not run (``workers.referee.clock``)."""
        return BotClock(c.proc.cpu_ns, budget_ms, wall_ms, stalls=c.proc.stalls, stopped_limit_s=self.limits.stopped_s)

    def _crash_behind_timeout(self, c: BotPipes) -> None:
        """A bot that died or closed its output is a crash even if the clock ran out first.

        Inside bubblewrap the sandbox's own processes keep copies of the bot's pipes, so
        neither an exit nor a closed stdout shows up as end-of-file right away: look at
        the processes themselves.
        """
        self.pump(lambda: c.out_eof, deadline=time.monotonic() + 0.02, stop_on_fault=False)
        if c.fault is None and c.proc.poll() is not None:
            self._note_fault(c, SeatStatus.CRASH, "exited")
        if c.fault is None and c.proc.sandboxed and not c.proc.holds_pipe(c.out_fd):
            self._note_fault(c, SeatStatus.CRASH, "closed its output")
        if c.fault is not None:
            raise SeatFault(c.seat, *self.classify(c))

    def finish(self, end_message: dict[str, Any]) -> None:
        """Send ``end``, close every input, and give the bots a short grace to exit."""
        self.ending = True
        for c in self.conns:
            # The last look at CPU and memory: a bot that exits by itself after `end` leaves no
            # reliable account (its sandbox's init does not pass its children's times on).
            c.proc.sample()
            c.ended = True
            c.expecting = False
            self.send(c, end_message)
        deadline = time.monotonic() + END_GRACE_S
        self.pump(lambda: all(not c.wbuf or c.in_closed for c in self.conns), deadline=deadline, stop_on_fault=False)
        for c in self.conns:
            self._close_input(c)
        # A process's exit makes no pipe event of its own: look often.
        exited = lambda: all(c.proc.poll() is not None for c in self.conns)  # noqa: E731
        self.pump(exited, deadline=deadline, stop_on_fault=False, tick=0.002)

    def drain_after_kill(self) -> None:
        """Read what is left in the pipes once every writer is dead (bounded)."""
        self.ending = True
        deadline = time.monotonic() + 0.5
        self.pump(lambda: all(c.out_eof and c.err_eof for c in self.conns), deadline=deadline, stop_on_fault=False)
