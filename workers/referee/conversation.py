"""Talking to the bots of one match: the protocol's messages, each bot's clock, its faults.

The pipes and their poll loop are ``workers.referee.pipes``; this is what the
referee says and expects over them: ``start`` and every ``ready``, each
``turn`` and its answer, ``end``.  A seat's first fault is kept and ends the
match as that seat's forfeit (``workers.referee.play``).

Time is charged by ``workers.referee.clock``: a bot pays for the CPU time of its own
processes while it is on move, with a wall-clock backstop, and never for time
the referee itself was not running, nor for time the bot could not run (waiting
for a CPU, stopped from outside: ``workers.sandbox.stalls``).  The bot on move gets the CPU; the others
only what it leaves (their control groups' weight, or nice 19 without one).
"""

from __future__ import annotations

import threading
import time
from typing import Any

from workers.match import Clock, SeatStatus
from workers.referee.clock import BotClock
from workers.referee.pipes import BotPipes, MatchStopped, PipeLoop
from workers.referee.text import answer_fault, clean_text, parse_line, quoted, short_text
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.start import ExternalKillError, ExternalStopError

__all__ = ["BotPipes", "Conversation", "MatchStopped", "SeatFault", "clean_text", "parse_line"]

END_GRACE_S = 0.25  # after `end`: time for bots to exit by themselves before the kill


class SeatFault(Exception):
    """A seat broke the rules; carries the protocol status."""

    def __init__(self, seat: int, status: SeatStatus, detail: str) -> None:
        super().__init__(f"seat {seat}: {status}: {detail}")
        self.seat, self.status, self.detail = seat, status, detail


class Conversation(PipeLoop):
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
        super().__init__(conns, limits, stop=stop)
        self.clock = clock
        self.limits = limits
        self.cpu_limit_s = cpu_limit_s
        self.ready_info: dict[int, tuple[str | None, str | None]] = {}

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
