"""Running matches as spectators see them: every ply's public view, from the worker to the match page.

The worker's runner hands a ``LivePublisher`` to the referee, which calls it
with the start position and after every move.  It keeps the move, its seat
and its time (and, at the start, the rules version the match is played
under), in one list per match:

- a Redis list ``arbiter:live:<database>:<match>:<attempt>`` when a Redis is
  configured (``ARBITER_CACHE_URL``, else the broker's ``REDIS_URL``),
  written by one thread per process (``_Flusher``) in one pipeline of
  whatever plies are waiting, at most every ``FLUSH_EVERY_S``, so that the
  referee never waits for Redis: a round trip per ply was about a tenth of
  a short match's time, and a pipeline per ply about a tenth of its CPU;
- embedded, a JSON-lines file ``<ARBITER_VAR_DIR>/live/<match>-<attempt>.jsonl``:
  one appended line per ply.

Neither touches the database.  The match page polls ``match_live``: one read
of the match row (may this user see it, is it still running, which attempt,
and what replays it) and one read of that attempt's list.  The web process
replays the moves with the engine, as the replay of a finished match does,
and answers each ply's public observation (``public_observation()``: never
a hand, never the seed).  The worker used to encode that view at every ply,
about 2 KB of JSON (40 µs) a ply for Games Up, a few ms of a short match's
CPU on the one path every match takes, for pages that are mostly never
opened; the replay now costs only the processes serving a spectator, and it
is kept per match (``livereplay.Replays``) so a poll replays only the plies since the
last one.  The list goes when the result is recorded; one left by a killed
worker expires after ``LIVE_TTL_S``.  A failure here never harms the match:
the publisher stops and spectators see the replay at the end.  docs/web.md
gives the figures.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from functools import cache
from pathlib import Path
from typing import Any

import redis
from django.conf import settings
from django.db import connection

import engines
from tournaments.matches.livereplay import LiveGame, Replays
from tournaments.matches.models import Match
from tournaments.matches.selectors import matches_visible
from workers.match import MoveRecord

logger = logging.getLogger(__name__)

# A match's list is kept this long after its last ply (a worker killed mid-match leaves it behind).
LIVE_TTL_S = 3600
# Plies published per match at most: beyond them spectators wait for the replay (a bound on memory).
LIVE_MAX_PLIES = 2000
# A live view is a convenience: a Redis that does not answer in this long is given up for the match.
REDIS_TIMEOUT_S = 0.5
# A process writes its queued plies to Redis at most this often: well within the page's poll (ARBITER_LIVE_POLL_MS).
FLUSH_EVERY_S = 0.25


# One list per attempt: a worker that lost its lease never touches the list of the attempt after it.
def _key(match_id: int, attempt: int) -> str:
    # The database's name keeps two deployments sharing one Redis apart.
    return f"arbiter:live:{connection.settings_dict['NAME']}:{match_id}:{attempt}"


def _file(match_id: int, attempt: int) -> Path:
    return Path(settings.ARBITER_LIVE_DIR) / f"{match_id}-{attempt}.jsonl"


@cache
def _client(url: str) -> redis.Redis:
    """One client (and its connection pool) per process and URL."""
    return redis.Redis.from_url(url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S)


def _trim_files(directory: Path) -> None:
    """Remove the lists of matches no worker has written to for ``LIVE_TTL_S`` (killed workers' leftovers)."""
    cutoff = time.time() - LIVE_TTL_S  # a file's age, on this host's clock like the file's own stamp
    with contextlib.suppress(FileNotFoundError):
        for path in directory.iterdir():
            with contextlib.suppress(FileNotFoundError):
                if path.stat().st_mtime < cutoff:
                    path.unlink()


class _Flusher:
    """The process's one thread that writes the Redis lists, so that a ply costs the referee no round trip.

    Publishers queue their lines and their list's removal here; the thread
    writes what is queued, for every match of the process, in one pipeline,
    in the order it was queued, at most once every ``FLUSH_EVERY_S`` (unless
    someone waits for it: ``wait``).  A pipeline per ply had cost the worker
    process and Redis about a tenth of a short match's CPU; spectators poll
    once a second anyway.  It is started again in a forked child.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._queued: list[tuple[LivePublisher, str | None, bool]] = []  # (publisher, line or None: remove, first)
        self._busy = False
        self._urgent = False
        self._pid = 0

    def put(self, publisher: LivePublisher, line: str | None, *, first: bool = False) -> None:
        with self._lock:
            if self._pid != os.getpid():
                self._pid, self._queued, self._busy = os.getpid(), [], False
                threading.Thread(target=self._run, name="arbiter-live", daemon=True).start()
            self._queued.append((publisher, line, first))
            if len(self._queued) == 1:  # the thread waits for a first line; later ones join it
                self._wake.notify_all()

    def wait(self) -> None:
        """Until everything queued so far is written (or given up)."""
        with self._lock:
            self._urgent = True
            self._wake.notify_all()
            while self._queued or self._busy:
                self._wake.wait()

    def _run(self) -> None:
        written = 0.0
        while True:
            with self._lock:
                while not self._queued:
                    self._wake.wait()
                # Let the plies of the next FLUSH_EVERY_S join this pipeline, unless someone waits.
                while not self._urgent and (left := written + FLUSH_EVERY_S - time.monotonic()) > 0:
                    self._wake.wait(left)
                batch, self._queued, self._busy, self._urgent = self._queued, [], True, False
            try:
                self._write(batch)
            finally:
                written = time.monotonic()
                with self._lock:
                    self._busy = False
                    self._wake.notify_all()

    @staticmethod
    def _write(batch: list[tuple[LivePublisher, str | None, bool]]) -> None:
        pipes: dict[str, Any] = {}
        owners: dict[str, list[LivePublisher]] = {}
        # A list's lines waiting to go, in order: one RPUSH of all of them (and one EXPIRE) per list
        # and pipeline, rather than two commands per ply; a removal of the list sends them first.
        waiting: dict[tuple[str, str], list[str]] = {}

        def push(url: str, key: str) -> None:
            lines = waiting.pop((url, key), None)
            if lines:
                pipes[url].rpush(key, *lines)
                pipes[url].expire(key, LIVE_TTL_S)

        for publisher, line, first in batch:
            if publisher.broken and line is not None:
                continue
            pipe = pipes.get(publisher.url)
            if pipe is None:
                pipe = pipes[publisher.url] = _client(publisher.url).pipeline(transaction=False)
                owners[publisher.url] = []
            owners[publisher.url].append(publisher)
            if line is None or first:
                # The match's list goes (None), or one left under this name (a database restored
                # from a backup) is not this game's (first).
                push(publisher.url, publisher.key)
                pipe.delete(publisher.key)
            if line is not None:
                waiting.setdefault((publisher.url, publisher.key), []).append(line)
        for url, key in list(waiting):
            push(url, key)
        for url, pipe in pipes.items():
            try:
                pipe.execute()
            except Exception as exc:  # a broken Redis (or anything else) never stops the thread
                for publisher in owners[url]:
                    if not publisher.broken:
                        publisher.broken = True
                        logger.warning("match %s: its live view stops (%s)", publisher.match_id, exc)


_flusher = _Flusher()
_replays = Replays()


class LivePublisher:
    """Publishes one attempt of one match, ply by ply (``workers.referee.play.MoveListener``).

    With Redis, the lines are written by the process's flusher thread, a
    pipeline of whatever is queued at a time: the referee only encodes the ply.
    """

    def __init__(self, *, match_id: int, attempt: int) -> None:
        self.match_id = match_id
        self.attempt = attempt
        self.url: str = settings.ARBITER_LIVE_REDIS_URL
        self.key = _key(match_id, attempt)
        self.path = _file(match_id, attempt)
        self.plies = 0
        self.broken = False

    def __call__(self, state: engines.State, move: MoveRecord | None) -> None:
        """Add the position after ``move`` (``None``: the start) to the match's list."""
        if self.broken or self.plies >= LIVE_MAX_PLIES:
            return
        if move is None:  # the start: the rules it is played under, for the page's replay
            entry: dict[str, Any] = {"seat": None, "move": None, "ms": None, "rules": state.to_json()["version"]}
        else:
            entry = {"seat": move.seat, "move": move.move, "ms": move.ms}
        line = json.dumps(entry, separators=(",", ":"))
        try:
            self._write(line, first=move is None)
        except OSError as exc:
            self.broken = True
            logger.warning("match %s: its live view stops (%s)", self.match_id, exc)
            return
        self.plies += 1

    def _write(self, line: str, *, first: bool) -> None:
        if self.url:
            _flusher.put(self, line, first=first)
            return
        if first:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _trim_files(self.path.parent)
        with self.path.open("w" if first else "a", encoding="utf-8") as out:
            out.write(line + "\n")

    def flush(self) -> None:
        """Wait until every ply given so far is written (or the publisher gave up); the files need no wait."""
        if self.url:
            _flusher.wait()

    def close(self) -> None:
        """Drop the list: the match is recorded (or given up), and its page shows the record.

        With Redis the removal is queued behind the match's last plies (it
        cannot come before them); a failure leaves the list to expire.
        """
        if self.url:
            _flusher.put(self, None)
            return
        try:
            self.path.unlink(missing_ok=True)
        except OSError as exc:
            logger.warning("match %s: its live view was not removed (%s); it expires", self.match_id, exc)


def _entries(match_id: int, attempt: int) -> list[dict[str, Any]]:
    """The published plies, the start first (without a line still being written)."""
    url: str = settings.ARBITER_LIVE_REDIS_URL
    if url:
        raw = _client(url).lrange(_key(match_id, attempt), 0, -1)
        return [json.loads(item) for item in raw]
    try:
        text = _file(match_id, attempt).read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    lines = text.split("\n")[:-1]  # the last piece has no newline yet: not whole
    return [json.loads(line) for line in lines]


def match_live(*, user: Any, match_id: int, since: int = 0) -> dict[str, Any] | None:
    """A running match's plies from ``since`` on, as spectators see them; None if the user may not see it.

    ``{"status", "attempt", "plies": [{"seat", "move", "ms", "obs"}...]}``; ``plies`` is
    empty once the match is no longer running (the page then shows its replay).
    """
    row = (
        matches_visible(user=user)
        .filter(id=match_id)
        .values("status", "attempt", "game_id", "options", "seed", "seats")
        .first()
    )
    if row is None:
        return None
    body: dict[str, Any] = {"status": row["status"], "attempt": row["attempt"], "plies": []}
    if row["status"] != Match.Status.RUNNING:
        return body
    try:
        entries = _entries(match_id, row["attempt"])
    except (OSError, ValueError, redis.RedisError) as exc:
        logger.warning("match %s: its live view cannot be read (%s)", match_id, exc)
        return body
    if not entries:
        return body
    since = max(since, 0)
    game = LiveGame(row["game_id"], str(entries[0].get("rules") or ""), row["options"], row["seed"], row["seats"])
    views = _replays.views(_key(match_id, row["attempt"]), game, [e["move"] for e in entries[1:]], since)
    body["plies"] = [
        {"seat": e["seat"], "move": e["move"], "ms": e["ms"], "obs": view}
        for e, view in zip(entries[since:], views, strict=False)
    ]
    return body
