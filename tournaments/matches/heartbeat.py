"""The worker process's heartbeat: one thread, one database connection, every lease this process holds.

A match's lease is renewed every ``ARBITER_HEARTBEAT_S`` while its worker
plays it, and in between, every ``ARBITER_CANCEL_CHECK_S``, one read by
primary key asks whether it was cancelled, so that its bots are stopped
within about that long rather than a heartbeat (``matches.life``).  The
first look comes that long after the claim, not at once: a match shorter
than that costs no read.

Why one thread per process rather than one per match: a thread started for
each match opened a database connection of its own and closed it at the end,
so every match paid a new PostgreSQL backend (its start-up and cold caches).
This thread lives as long as the process and keeps its connection across
matches; it closes it after a failed call, so that the next call reconnects,
and when no match has been held for ``IDLE_CLOSE_S``.

A failed call (the database restarting, a cut link, anything else) is
retried with backoff for as long as the match is held: a match is given up
only when the database says it is no longer this attempt's.  A renewal
refused because the match was just recorded under this very attempt (the
record committed between the renewal's turn and the release) is not a lost
lease and is not reported as one.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection

from tournaments.matches.life import match_heartbeat, match_state

logger = logging.getLogger(__name__)

# The first wait after a failed database call; it doubles up to the heartbeat interval.
FIRST_BACKOFF_S = 0.25
# With no match held for this long, the thread closes its connection (matches back to back keep it).
IDLE_CLOSE_S = 30.0


def reconnect() -> None:
    """Drop this thread's database connection so that the next call opens a new one."""
    with contextlib.suppress(Exception):
        connection.close()


def backoff(failures: int) -> float:
    """How long to wait after ``failures`` failed database calls in a row."""
    return min(FIRST_BACKOFF_S * 2 ** (failures - 1), settings.ARBITER_HEARTBEAT_S)


@dataclass(eq=False)
class Lease:
    """One match held by this process: ``cancelled`` is set when its row says so; ``released`` ends it."""

    match_id: int
    attempt: int
    cancelled: threading.Event = field(default_factory=threading.Event)
    released: threading.Event = field(default_factory=threading.Event)
    next_beat: float = 0.0
    # The first cancel look: a match is not looked at the moment it is claimed (it was queued, and a
    # match shorter than ARBITER_CANCEL_CHECK_S, most of a busy worker's, then costs no read at all).
    next_look: float = 0.0


class Heartbeat:
    """The process's heartbeat thread and the leases it renews (``heartbeat`` below is the one instance)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._leases: list[Lease] = []
        self._pid = 0

    def hold(self, *, match_id: int, attempt: int) -> Lease:
        """Start renewing this attempt's lease; call ``release`` once its result (or error) is in."""
        lease = Lease(match_id=match_id, attempt=attempt)
        lease.next_beat = time.monotonic() + settings.ARBITER_HEARTBEAT_S
        lease.next_look = time.monotonic() + settings.ARBITER_CANCEL_CHECK_S
        with self._lock:
            if self._pid != os.getpid():
                # A new process (a forked pool child): threads do not survive a fork.
                self._pid, self._leases = os.getpid(), []
                threading.Thread(target=self._run, name="arbiter-heartbeat", daemon=True).start()
            self._leases.append(lease)
            self._wake.notify()
        return lease

    def release(self, lease: Lease) -> None:
        """Stop renewing ``lease`` (its match was recorded, errored or cancelled)."""
        lease.released.set()
        with self._lock:
            if lease in self._leases:
                self._leases.remove(lease)

    def _run(self) -> None:
        failures = 0
        while True:
            with self._lock:
                while not self._leases:
                    if not self._wake.wait(IDLE_CLOSE_S) and not self._leases:
                        # Idle for a while (no match held): give the database its connection back.
                        reconnect()
                        self._wake.wait()
                leases = list(self._leases)
            try:
                for lease in leases:
                    self._look(lease)
            except Exception as exc:
                failures += 1
                if failures == 1:
                    logger.warning("lease renewal failed (%s); retrying", exc)
                reconnect()
                with self._lock:
                    self._wake.wait(backoff(failures))
                continue
            if failures:
                logger.warning("lease renewed after %d failure(s)", failures)
                failures = 0
            with self._lock:
                # Woken early by a new lease: it is looked at on the next turn.
                self._wake.wait(min(settings.ARBITER_CANCEL_CHECK_S, settings.ARBITER_HEARTBEAT_S))

    def _look(self, lease: Lease) -> None:
        """One turn for one lease: renew it when due, else look for a cancel; end it when it is gone."""
        if lease.released.is_set() or lease.cancelled.is_set():
            return
        if time.monotonic() >= lease.next_beat:
            held = match_heartbeat(match_id=lease.match_id, attempt=lease.attempt)
            lease.next_beat = time.monotonic() + settings.ARBITER_HEARTBEAT_S
            if held:
                return
        elif time.monotonic() < lease.next_look:
            return
        status, attempt = match_state(match_id=lease.match_id)
        if status == "running" and attempt == lease.attempt:
            return
        # Released meanwhile: its worker wrote its result or error itself; nothing was lost.
        ours = lease.released.is_set() or (status == "finished" and attempt == lease.attempt)
        self.release(lease)
        if status == "cancelled":
            logger.warning("match %s attempt %s was cancelled: its bots are stopped", lease.match_id, lease.attempt)
            lease.cancelled.set()
        elif not ours:
            # The sweeper gave the match to someone else: our result will be dropped.
            logger.warning("match %s attempt %s lost its lease", lease.match_id, lease.attempt)


heartbeat = Heartbeat()
