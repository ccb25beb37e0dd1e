"""The clock that charges a bot only for its own time.

A move's thinking time is the CPU time of all the bot's processes (from its
control group, or summed over its processes in /proc) between the turn being
sent and the answer being read.  A wall-clock backstop, well above the CPU
budget (``SandboxLimits.wall_limit_ms``), ends a move of a bot that sleeps or
blocks instead of thinking.

Both exclude time the referee itself was not running.  The referee knows how
long it meant to be away each time it waits for the pipes; when it comes back
later than that (it was stopped, swapped out, starved by a neighbour), only the
time it meant to wait is counted on the wall clock, and no more CPU time than
fits in it (a bot on its one CPU cannot use more; whatever it did beyond, it
may have done after answering).  A 15 s stop of the worker therefore costs no
bot more than a tenth of a second.

The wall clock also leaves out time the bot could not run through no doing of
its own (``workers.sandbox.stalls``): time its threads waited on a run queue
for a CPU, and time it was stopped from outside.  So a bot starved by the
machine's load is never timed out by the backstop (its CPU budget still
holds), and a bot that somebody else stops pays nothing for the stop; stopped
for longer than a bound (``SandboxLimits.stopped_s``), :meth:`BotClock.stopped_out`
says so and the referee gives the match up as the service's fault.  The
kernel's figures are read at most every ``LOOK_EVERY_S`` of counted time, and
always before the backstop is declared reached.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from workers.sandbox.stalls import Look

# A wake-up this much later than asked for means the referee was not running for the rest.
SLACK_S = 0.05
# Wall time counted between two looks at the bot's stalls (each look reads a few files per thread).
LOOK_EVERY_S = 0.05


class BotClock:
    """One bot's account for one stretch (a move, the start-up): CPU charged and wall time used.

    ``stalls`` (the bot's ``BotProcess.stalls``) says how long it waited for a CPU and whether
    it is stopped from outside; without it every wall second counts.
    """

    def __init__(
        self,
        cpu_ns: Callable[[], int],
        budget_ms: int,
        wall_limit_ms: int,
        now: Callable[[], float] = time.monotonic,
        *,
        stalls: Callable[[], Look] | None = None,
        stopped_limit_s: float = math.inf,
    ) -> None:
        self._read = cpu_ns
        self._now = now
        self._stalls = stalls
        self.budget_ns = budget_ms * 1_000_000
        self.wall_limit_s = wall_limit_ms / 1000
        self.stopped_limit_s = stopped_limit_s
        self.charged_ns = 0
        self.wall_s = 0.0  # wall time counted, checked against the bot's stalls
        self.pending_s = 0.0  # wall time not yet checked against them
        self.excused_s = 0.0  # wall time not counted: the bot waited for a CPU or was stopped from outside
        self.stopped_s = 0.0  # how long the bot has been stopped from outside, without a break (last look)
        self.lost_s = 0.0  # time the referee was away beyond what it meant: charged to nobody
        self._stopped_out, self._stopped_for_s = False, 0.0
        self._waited_ns = stalls().waited_ns if stalls is not None else 0
        self._t = now()
        self._cpu = cpu_ns()
        self.stopped = False

    def update(self, meant_s: float) -> None:
        """Account the time since the last update; ``meant_s``: how long the referee meant to be away."""
        if self.stopped:
            return
        now, cpu = self._now(), self._read()
        gap, used = now - self._t, max(0, cpu - self._cpu)
        allowed = meant_s + SLACK_S
        if gap > allowed:
            # The referee was away longer than it meant: count only what it meant to wait, and
            # no more CPU than fits in that (the bot may have answered early in the gap).
            used = min(used, int(allowed * 1e9))
            self.lost_s += gap - allowed
            gap = allowed
        self.charged_ns += used
        self.pending_s += gap
        self._t, self._cpu = now, cpu
        if self.pending_s >= LOOK_EVERY_S or self.wall_s + self.pending_s >= self.wall_limit_s:
            self._settle()

    def _settle(self) -> None:
        """Count the pending wall time, less what the bot spent waiting for a CPU or stopped from outside."""
        pending, self.pending_s = self.pending_s, 0.0
        if self._stalls is None:
            self.wall_s += pending
            return
        look = self._stalls()
        waited_s, self._waited_ns = max(0, look.waited_ns - self._waited_ns) / 1e9, look.waited_ns
        self.stopped_s = look.stopped_s
        if look.stopped:
            # Stopped now: the whole stretch since the last look is the stopper's (the error is
            # at most one look's stretch, in either direction).
            excused = pending
            if not self._stopped_out and look.stopped_s > self.stopped_limit_s:
                # Sticky: the referee gives the match up even if the bot is let go meanwhile.
                self._stopped_out, self._stopped_for_s = True, look.stopped_s
        else:
            # The threads' waits add up (two waiting threads, twice the time): never more than elapsed.
            excused = min(pending, waited_s)
        self.excused_s += excused
        self.wall_s += pending - excused

    def stop(self, meant_s: float) -> None:
        """Account up to now and freeze the account (the answer is in)."""
        self.update(meant_s)
        if self.pending_s:
            self._settle()
        self.stopped = True

    @property
    def charged_ms(self) -> int:
        """CPU milliseconds charged so far."""
        return self.charged_ns // 1_000_000

    @property
    def wall_ms(self) -> int:
        """Wall-clock milliseconds counted so far (the referee's own stalls and the bot's excused time left out)."""
        return round((self.wall_s + self.pending_s) * 1000)

    def cpu_out(self) -> bool:
        """True when the CPU budget is used up."""
        return self.charged_ns >= self.budget_ns

    def wall_out(self) -> bool:
        """True when the wall-clock backstop is reached."""
        return self.wall_s >= self.wall_limit_s

    def out(self) -> bool:
        """True when either limit is reached."""
        return self.cpu_out() or self.wall_out()

    def stopped_out(self) -> bool:
        """True once the bot has been stopped from outside for longer than the bound: the service's fault."""
        return self._stopped_out

    def wait_s(self) -> float:
        """How long the referee may wait before this clock can run out (CPU runs at most as fast as wall)."""
        cpu_left = (self.budget_ns - self.charged_ns) / 1e9
        return max(0.0, min(cpu_left, self.wall_limit_s - self.wall_s - self.pending_s))

    def describe(self, budget_ms: int) -> str:
        """Why the clock ran out, for a timeout's detail."""
        if self.cpu_out():
            return f"used {self.charged_ms} ms of CPU time without answering (limit {budget_ms} ms)"
        excused = ""
        if self.excused_s >= 0.001:
            excused = f"; {round(self.excused_s * 1000)} ms waiting for a CPU or stopped from outside not counted"
        return (
            f"no answer within {self.wall_ms} ms of real time (the backstop for a bot that sleeps or blocks; "
            f"{self.charged_ms} ms of CPU used{excused})"
        )

    def describe_stop(self) -> str:
        """Why the match was given up, for an infrastructure error's detail."""
        return (
            f"a bot process was stopped from outside the sandbox for {self._stopped_for_s:.1f} s "
            f"(the bound is {self.stopped_limit_s:g} s)"
        )
