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
"""

from __future__ import annotations

import time
from collections.abc import Callable

# A wake-up this much later than asked for means the referee was not running for the rest.
SLACK_S = 0.05


class BotClock:
    """One bot's account for one stretch (a move, the start-up): CPU charged and wall time used."""

    def __init__(
        self, cpu_ns: Callable[[], int], budget_ms: int, wall_limit_ms: int, now: Callable[[], float] = time.monotonic
    ) -> None:
        self._read = cpu_ns
        self._now = now
        self.budget_ns = budget_ms * 1_000_000
        self.wall_limit_s = wall_limit_ms / 1000
        self.charged_ns = 0
        self.wall_s = 0.0
        self.lost_s = 0.0  # time the referee was away beyond what it meant: charged to nobody
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
        self.wall_s += gap
        self._t, self._cpu = now, cpu

    def stop(self, meant_s: float) -> None:
        """Account up to now and freeze the account (the answer is in)."""
        self.update(meant_s)
        self.stopped = True

    @property
    def charged_ms(self) -> int:
        """CPU milliseconds charged so far."""
        return self.charged_ns // 1_000_000

    @property
    def wall_ms(self) -> int:
        """Wall-clock milliseconds counted so far (the referee's own stalls excluded)."""
        return round(self.wall_s * 1000)

    def cpu_out(self) -> bool:
        """True when the CPU budget is used up."""
        return self.charged_ns >= self.budget_ns

    def wall_out(self) -> bool:
        """True when the wall-clock backstop is reached."""
        return self.wall_s >= self.wall_limit_s

    def out(self) -> bool:
        """True when either limit is reached."""
        return self.cpu_out() or self.wall_out()

    def wait_s(self) -> float:
        """How long the referee may wait before this clock can run out (CPU runs at most as fast as wall)."""
        cpu_left = (self.budget_ns - self.charged_ns) / 1e9
        return max(0.0, min(cpu_left, self.wall_limit_s - self.wall_s))

    def describe(self, budget_ms: int) -> str:
        """Why the clock ran out, for a timeout's detail."""
        if self.cpu_out():
            return f"used {self.charged_ms} ms of CPU time without answering (limit {budget_ms} ms)"
        return (
            f"no answer within {self.wall_ms} ms of real time (the backstop for a bot that sleeps or blocks; "
            f"{self.charged_ms} ms of CPU used)"
        )
