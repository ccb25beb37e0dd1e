"""Talking to the bots of one match: their pipes, one poll loop, and the protocol's messages.

One thread, one ``poll`` loop over every bot's three pipes (all non-blocking):
writes are buffered and go out only when a pipe is writable, so a bot that
never reads cannot stall the referee, and stderr is always drained so a bot
that floods it cannot block either.  A seat's first fault is kept and ends
the match as that seat's forfeit (``workers.referee``).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from workers.botprocess import BotProcess
from workers.match import Clock, SeatStatus

MAX_LINE = 64 * 1024  # longest answer line (protocol)
STDERR_KEPT = 64 * 1024  # first bytes of stderr kept per bot
END_GRACE_S = 0.25  # after `end`: time for bots to exit by themselves before the kill
_SAMPLE_EVERY_S = 0.1
NICE_OFF_MOVE = 19


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
    nice: int = 0

    def __post_init__(self) -> None:
        p = self.proc.popen
        assert p.stdin and p.stdout and p.stderr
        self.in_fd, self.out_fd, self.err_fd = p.stdin.fileno(), p.stdout.fileno(), p.stderr.fileno()
        for fd in (self.in_fd, self.out_fd, self.err_fd):
            os.set_blocking(fd, False)


class Conversation:
    """The referee's side of the protocol with every bot of one match, over their pipes."""

    def __init__(
        self, conns: list[BotPipes], clock: Clock, output_limit: int, cpu_limit_s: int, memory_mb: int
    ) -> None:
        self.conns = conns
        self.clock = clock
        self.output_limit = output_limit
        self.cpu_limit_s = cpu_limit_s
        self.memory_mb = memory_mb
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
            self._note_fault(c, SeatStatus.PROTOCOL_ERROR, "wrote a line when no answer was expected")

    def _note_fault(self, c: BotPipes, status: SeatStatus, detail: str) -> None:
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
                        self._note_fault(
                            c, SeatStatus.MEMORY_LIMIT, f"its processes held more than {self.memory_mb} MiB"
                        )
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

    def classify(self, c: BotPipes) -> tuple[SeatStatus, str]:
        """Turn a pending fault into its final status: a crash may really be memory or CPU."""
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
        sig = c.proc.exit_signal()
        return SeatStatus.CRASH, f"was killed by signal {sig}" if sig else f"exited with status {code}"

    # -- the protocol ---------------------------------------------------------

    def take_answer(self, c: BotPipes) -> bytes | None:
        if c.lines:
            line = c.lines.popleft()
            c.expecting = False
            if c.lines:
                raise SeatFault(c.seat, SeatStatus.PROTOCOL_ERROR, "sent more than one answer")
            return line
        return None

    def startup(self, start_messages: list[dict[str, Any]]) -> list[SeatFault]:
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
                    raise SeatFault(c.seat, *self.classify(c))
                if line is None:
                    raise SeatFault(c.seat, SeatStatus.STARTUP_TIMEOUT, f"no ready within {self.clock.startup_ms} ms")
                ready = parse_line(line)
                if ready is None or ready.get("type") != "ready":
                    raise SeatFault(c.seat, SeatStatus.PROTOCOL_ERROR, 'the answer to start was not {"type": "ready"}')
                self.ready_info[c.seat] = (_short(ready.get("name")), _short(ready.get("version")))
            except SeatFault as fault:
                faults.append(fault)
        return faults

    def ask(self, c: BotPipes, message: dict[str, Any], budget_ms: int) -> tuple[str, int]:
        """Send a turn and return the answer's move and its time; raises SeatFault."""
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
            self._note_fault(c, SeatStatus.PROTOCOL_ERROR, "wrote a line when no answer was expected")
            raise SeatFault(c.seat, *self.classify(c))
        started = time.monotonic()
        c.expecting = True
        self.send(c, message)
        self.pump(started + budget_ms / 1000, lambda: bool(c.lines))
        elapsed_ms = int((time.monotonic() - started) * 1000)
        for other in self.conns:
            if other.fault is not None:
                raise SeatFault(other.seat, *self.classify(other))
        line = self.take_answer(c)
        if line is None or elapsed_ms > budget_ms:
            self._crash_behind_timeout(c)
            raise SeatFault(c.seat, SeatStatus.TIMEOUT, f"no answer within {budget_ms} ms")
        answer = parse_line(line)
        move = answer.get("move") if answer is not None else None
        if not isinstance(move, str):
            detail = 'the answer was not one JSON object with a string "move"'
            raise SeatFault(c.seat, SeatStatus.PROTOCOL_ERROR, detail)
        return move, elapsed_ms

    def _crash_behind_timeout(self, c: BotPipes) -> None:
        """A bot that died or closed its output is a crash even if the clock ran out first.

        Inside bubblewrap the sandbox's own processes keep copies of the bot's pipes, so
        neither an exit nor a closed stdout shows up as end-of-file right away: look at
        the processes themselves.
        """
        self.pump(time.monotonic() + 0.02, lambda: c.out_eof, stop_on_fault=False)
        if c.fault is None and c.proc.poll() is not None:
            self._note_fault(c, SeatStatus.CRASH, "exited")
        if c.fault is None and c.proc.sandboxed and not c.proc.holds_pipe(c.out_fd):
            self._note_fault(c, SeatStatus.CRASH, "closed its output")
        if c.fault is not None:
            raise SeatFault(c.seat, *self.classify(c))

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


def parse_line(line: bytes) -> dict[str, Any] | None:
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
