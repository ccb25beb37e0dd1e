"""The referee's side of one match's pipes: one poll loop over every bot's stdin, stdout and stderr.

One thread, one ``poll`` loop over every bot's three pipes (all non-blocking):
writes are buffered and go out only when a pipe is writable, so a bot that
never reads cannot stall the referee, and stderr is always drained so a bot
that floods it cannot block either.  Lines read are queued per bot; a bot's
first fault seen here (a line too long, too much output, a closed pipe,
memory over its limit) is kept for the protocol (``workers.referee.conversation``)
to turn into that seat's forfeit.

The service may stop a match before its end (it was cancelled): when the
``stop`` event it passes is set, the loop raises MatchStopped within a tick,
and the referee kills every bot (``workers.referee.play``).
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

from workers.match import SeatStatus
from workers.referee.clock import BotClock
from workers.referee.text import quoted
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.process import BotProcess

MAX_LINE = 64 * 1024  # longest answer line (protocol)
STDERR_KEPT = 64 * 1024  # first bytes of stderr kept per bot
_SAMPLE_EVERY_S = 0.1


class MatchStopped(Exception):
    """The service stopped the match before its end (it was cancelled): no seat is at fault, nothing counts."""


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


class PipeLoop:
    """Every bot's pipes of one match, served by one poll loop; the protocol builds on it."""

    def __init__(self, conns: list[BotPipes], limits: SandboxLimits, *, stop: threading.Event | None = None) -> None:
        self.conns = conns
        self.stop = stop
        # Once the bots are told the end (or killed), a stop changes nothing: the loop finishes its work.
        self.ending = False
        self.output_limit = limits.output_kb * 1024
        self.memory_mb = limits.memory_mb
        self.poller = select.poll()
        self.by_fd: dict[int, tuple[BotPipes, str]] = {}
        for c in conns:
            self.poller.register(c.out_fd, select.POLLIN)
            self.poller.register(c.err_fd, select.POLLIN)
            self.by_fd[c.out_fd] = (c, "out")
            self.by_fd[c.err_fd] = (c, "err")
            self.by_fd[c.in_fd] = (c, "in")

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

    def drain_after_kill(self) -> None:
        """Read what is left in the pipes once every writer is dead (bounded)."""
        self.ending = True
        deadline = time.monotonic() + 0.5
        self.pump(lambda: all(c.out_eof and c.err_eof for c in self.conns), deadline=deadline, stop_on_fault=False)
