"""Every environment variable Arbiter reads: its name, type, default and meaning, parsed in one place.

The Django settings (``tournaments/settings.py``), the bot runtime (no Django:
``workers.sandbox.start``, ``workers.referee.local``) and gunicorn's configuration all read
the environment through :func:`read`, so a variable is parsed the same way
everywhere.  A malformed value raises :class:`ConfigError` naming the
variable; the settings read every variable at import, so a web or worker
process with a bad value stops at start, never at its first match.

``docs/configuration.md`` lists the same variables; a test keeps the two
equal and checks that nothing reads an ``ARBITER_*`` variable any other way.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class ConfigError(ValueError):
    """An environment variable has a value that cannot be used; the message names it."""


@dataclass(frozen=True)
class Setting:
    """One environment variable: how to parse it and what it means."""

    name: str
    kind: str  # "int", "float", "bool", "text", "path", "rate", "list", "choice"
    default: Any
    doc: str
    group: str
    minimum: float | None = None
    choices: tuple[str, ...] = ()

    def parse(self, raw: str) -> Any:
        """The typed value of ``raw``; ConfigError naming the variable when it does not parse."""
        try:
            return _PARSERS[self.kind](self, raw.strip())
        except ConfigError:
            raise
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{self.name}={raw!r}: {exc}") from None


def _number(setting: Setting, raw: str, cast: Callable[[str], float]) -> float:
    try:
        value = cast(raw)
    except ValueError:
        what = "a whole number" if setting.kind == "int" else "a number"
        raise ConfigError(f"{setting.name} must be {what}, got {raw!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ConfigError(f"{setting.name} must be a finite number, got {raw!r}")
    if setting.minimum is not None and value < setting.minimum:
        raise ConfigError(f"{setting.name} must be at least {setting.minimum:g}, got {raw!r}")
    return value


def _bool(setting: Setting, raw: str) -> bool:
    if raw.lower() in _TRUE:
        return True
    if raw.lower() in _FALSE:
        return False
    raise ConfigError(f"{setting.name} must be one of 1/0, true/false, yes/no, on/off; got {raw!r}")


_RATE = re.compile(r"^\d+/(second|minute|hour|day)$")


def _rate(setting: Setting, raw: str) -> str:
    if not _RATE.match(raw):
        raise ConfigError(f"{setting.name} must look like 60/hour (per second, minute, hour or day), got {raw!r}")
    return raw


def _choice(setting: Setting, raw: str) -> str:
    if raw.lower() not in setting.choices:
        raise ConfigError(f"{setting.name} must be one of {', '.join(setting.choices)}; got {raw!r}")
    return raw.lower()


_PARSERS: dict[str, Callable[[Setting, str], Any]] = {
    "int": lambda s, raw: int(_number(s, raw, int)),
    "float": lambda s, raw: float(_number(s, raw, float)),
    "bool": _bool,
    "text": lambda s, raw: raw,
    "path": lambda s, raw: raw,
    "rate": _rate,
    "list": lambda s, raw: [part.strip() for part in raw.split(",") if part.strip()],
    "choice": _choice,
}

SETTINGS: dict[str, Setting] = {}


def _add(name: str, kind: str, default: Any, doc: str, group: str, **extra: Any) -> None:
    SETTINGS[name] = Setting(name=name, kind=kind, default=default, doc=doc, group=group, **extra)


def read(name: str, environ: Mapping[str, str] | None = None, *, default: Any = None) -> Any:
    """The typed value of variable ``name`` (its registered default when unset or empty).

    ``default`` replaces the registered default for callers whose default
    depends on other settings (a path under the var dir, say).
    """
    setting = SETTINGS[name]
    raw = (os.environ if environ is None else environ).get(name, "")
    if raw.strip() == "":
        return setting.default if default is None else default
    return setting.parse(raw)


def read_all(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Every registered variable parsed (to fail at start on any malformed one)."""
    return {name: read(name, environ) for name in SETTINGS}


# -- the variables ------------------------------------------------------------------------
# Grouped as docs/configuration.md shows them.  Defaults of None mean "derived" (the doc says how).

_G = "Deployment"
_add("SECRET_KEY", "text", "", "Django's secret key. Unset means a developer machine: DEBUG on, a fixed key.", _G)
_add("DEBUG", "bool", None, "Django's debug pages (default: on without SECRET_KEY, off with it).", _G)
_add("ALLOWED_HOSTS", "list", None, "Host names the site answers to, comma-separated (default: any in development, "
     "localhost otherwise).", _G)  # fmt: skip
_add("CSRF_TRUSTED_ORIGINS", "list", [], "Origins trusted for CSRF, comma-separated (https://arbiter.example.org).", _G)
_add("DATABASE_URL", "text", "", "PostgreSQL URL (postgres://user:pw@host:5432/db); unset: SQLite under the var dir.",
     _G)  # fmt: skip
_add("REDIS_URL", "text", "", "Redis URL for the Celery broker (redis://host:6379/0); unset: the file-system broker.",
     _G)  # fmt: skip
_add("CELERY_BROKER_URL", "text", "", "Overrides REDIS_URL as the broker URL.", _G)
_add("ARBITER_VAR_DIR", "path", None, "Where the embedded database, broker, package cache and static files live "
     "(default: var/ in the checkout).", _G)  # fmt: skip
_add("ARBITER_QUEUE", "text", "celery", "Name of the main Celery queue; the other queues are named after it. "
     "Separate installations sharing one Redis use different names.", _G)  # fmt: skip
_add("ARBITER_STATIC_ROOT", "path", None, "Where collectstatic writes (default: static/ under the var dir).", _G)
_add("ARBITER_HTTPS", "bool", False, "The site is reached over HTTPS only: secure cookies, HSTS, redirect.", _G)
_add("ARBITER_SSL_REDIRECT", "bool", True, "With ARBITER_HTTPS, redirect plain HTTP to HTTPS.", _G)
_add("ARBITER_HSTS_SECONDS", "int", 365 * 24 * 3600, "With ARBITER_HTTPS, the HSTS max-age.", _G, minimum=0)
_add("ARBITER_HSTS_INCLUDE_SUBDOMAINS", "bool", True, "With ARBITER_HTTPS, HSTS covers subdomains.", _G)
_add("ARBITER_HSTS_PRELOAD", "bool", True, "With ARBITER_HTTPS, HSTS asks for preloading.", _G)
_add("ARBITER_BEHIND_PROXY", "bool", False, "Trust X-Forwarded-Proto, and the last X-Forwarded-For address (for "
     "throttles), from the proxy in front.", _G)  # fmt: skip
_add("ARBITER_LOG_FORMAT", "choice", "text", "Log lines as text or as one JSON object per line.", _G,
     choices=("text", "json"))  # fmt: skip
_add("ARBITER_LOG_LEVEL", "choice", "info", "Log level of Arbiter's loggers and gunicorn.", _G,
     choices=("debug", "info", "warning", "error", "critical"))  # fmt: skip
_add("ARBITER_METRICS_TOKEN", "text", "", "When set, /metrics needs 'Authorization: Bearer <token>'.", _G)
_add("ARBITER_HEALTH_SANDBOX", "bool", True, "/healthz runs the sandbox self-test (turn off on web-only hosts).", _G)
_add("ARBITER_HEALTH_SANDBOX_TTL", "float", 300.0, "Seconds a passing sandbox self-test is reused by /healthz.", _G,
     minimum=0)  # fmt: skip
_add("ARBITER_ROLE", "choice", "", "The role of this container for its health check (deploy/healthcheck.py): web, "
     "worker, maintenance, beat, flower or migrate; empty: read from its processes.", _G,
     choices=("", "web", "worker", "maintenance", "beat", "flower", "migrate"))  # fmt: skip
_add("ARBITER_WAIT_TIMEOUT", "float", 180.0, "Seconds deploy/wait_ready.py waits for the database, the broker and "
     "the migrations before giving up.", _G, minimum=1)  # fmt: skip
_add("FLOWER_PORT", "int", 5555, "The port Flower listens on (its health check asks it there).", _G, minimum=1)
_add("ARBITER_DB_IDLE_TX_TIMEOUT_S", "int", 60, "PostgreSQL ends a session idle in a transaction this long, "
     "releasing its locks (0: never).", _G, minimum=0)  # fmt: skip

_G = "Web server (gunicorn, deploy/gunicorn.conf.py)"
_add("ARBITER_BIND", "text", "0.0.0.0:8000", "Address gunicorn listens on.", _G)
_add("WEB_CONCURRENCY", "int", None, "gunicorn worker processes (default: CPU cores + 1).", _G, minimum=1)
_add("ARBITER_WEB_THREADS", "int", 1, "Threads per gunicorn worker.", _G, minimum=1)
_add("ARBITER_WEB_TIMEOUT", "int", 60, "Seconds before gunicorn restarts a stuck worker.", _G, minimum=1)
_add("ARBITER_FORWARDED_ALLOW_IPS", "text", "127.0.0.1", "Addresses whose X-Forwarded-* headers gunicorn trusts.", _G)

_G = "Matches, leases and recovery"
_add("ARBITER_MATCH_MAX_ATTEMPTS", "int", 3, "Attempts a match gets after failures of the service before it is "
     "ERRORED.", _G, minimum=1)  # fmt: skip
_add("ARBITER_TASK_MARGIN_S", "int", 60, "Seconds on top of a match's clocks before Celery's time limit strikes.", _G,
     minimum=1)  # fmt: skip
_add("ARBITER_LEASE_S", "float", 30.0, "A running match whose worker has not renewed its lease for this long is "
     "run again.", _G, minimum=1)  # fmt: skip
_add("ARBITER_HEARTBEAT_S", "float", 5.0, "Seconds between a worker's lease renewals.", _G, minimum=0.1)
_add("ARBITER_CANCEL_CHECK_S", "float", 1.0, "Seconds between a worker's looks (one read by primary key) at whether "
     "the match it plays was cancelled; a cancelled match's bots are stopped within about this long.", _G,
     minimum=0.1)  # fmt: skip
_add("ARBITER_LIVE_POLL_MS", "int", 1000, "Milliseconds between a running match's page asking for new moves "
     "(each ask: one read of the match row, one of the live list).", _G, minimum=200)  # fmt: skip
_add("ARBITER_OWNER_SHARE", "float", 0.5, "The share of the match slots one owner may hold while another owner's "
     "matches wait: an owner already running max(1, floor(share x slots)) matches is passed over, the slots being the "
     "matches running plus the one being claimed (1 or more: no limit). An owner alone in the queue takes every "
     "slot.", _G, minimum=0.01)  # fmt: skip
_add("ARBITER_SWEEP_EVERY_S", "float", 5.0, "Seconds between runs of the lease sweeper.", _G, minimum=1)
_add("ARBITER_DISPATCH_EVERY_S", "float", 15.0, "Seconds between runs of the dispatcher, which sends the messages "
     "the broker lost (one per queued match).", _G, minimum=1)  # fmt: skip
_add("ARBITER_RUNTIME_WAIT_S", "float", 3600.0, "A queued match that a worker left for want of a runtime (`node`...) "
     "is ended as errored (never rated) once no worker ran that runtime this long.", _G, minimum=1)  # fmt: skip
_add("ARBITER_DISPATCH_BATCH", "int", 2000, "Most messages the dispatcher sends in one run.", _G, minimum=1)
_add("ARBITER_BROKER_POLL_S", "float", 0.1, "Embedded broker: seconds a worker waits before it looks in the queue "
     "folder again after finding nothing it may take (kombu's default of 1 s caps a worker at a message per process "
     "per second).", _G, minimum=0.01)  # fmt: skip
_add("ARBITER_BROKER_READ_WAIT_S", "float", 2.0, "Embedded broker: seconds a consumer waits for a message file that "
     "is still locked or does not parse yet (a writer of kombu's own file-system transport) before it quarantines the "
     "file.", _G, minimum=0)  # fmt: skip
_add("ARBITER_BROKER_RETRIES", "int", 0, "Times a worker tries again to reach a lost broker (after 2, 4, 6 s ... "
     "then every 30 s) before it exits; 0: it never gives up.", _G, minimum=0)  # fmt: skip
_add("ARBITER_RESULT_RETRY_S", "float", 600.0, "Seconds a worker keeps trying to record a match it played while "
     "the database is unreachable (with backoff) before it gives the result up.", _G, minimum=0)  # fmt: skip
_add("ARBITER_RUN_LOOP_S", "float", 5.0, "Seconds a worker process goes on claiming the next queued match inside "
     "one run_next task, with no broker round trip between matches (each claim is still the fair pick); 0: one match "
     "per task.", _G, minimum=0)  # fmt: skip
_add("ARBITER_WORKER_MIN_FREE_MB", "int", 64, "A worker takes matches only while its temp dirs have this much free "
     "space (MiB).", _G, minimum=0)  # fmt: skip
_add("ARBITER_WORKER_CHECK_EVERY_S", "float", 30.0, "Seconds a passing worker self-check (temp space, package cache, "
     "sandbox) is trusted; a failing one is run again before every message.", _G, minimum=0)  # fmt: skip
_add("ARBITER_IDEMPOTENCY_TTL_H", "float", 24.0, "Hours the answer to a POST sent with an Idempotency-Key is kept "
     "for its retries.", _G, minimum=0)  # fmt: skip
_add("ARBITER_PACKAGE_CACHE", "path", None, "Where workers keep unpacked bot packages (default: packages/ under "
     "the var dir).", _G)  # fmt: skip

_G = "Bot sandbox (per bot)"
_add("ARBITER_SANDBOX_MEMORY_MB", "int", 512, "Address space of each of a bot's processes, in MiB.", _G, minimum=1)
_add("ARBITER_SANDBOX_PROCESSES", "int", 64, "Processes and threads a bot may have at once.", _G, minimum=1)
_add("ARBITER_SANDBOX_RUNTIME_ADDRESS_SPACE_MB", "int", 1024, "Address space of each process of a bot run by "
     "`java` or compiled by Go, in MiB: their runtimes reserve far more than they use; their memory is still held "
     "to ARBITER_SANDBOX_MEMORY_MB by the bot's control group.", _G, minimum=1)  # fmt: skip
_add("ARBITER_SANDBOX_OPEN_FILES", "int", 64, "Open files per bot process.", _G, minimum=1)
_add("ARBITER_SANDBOX_FILE_SIZE_MB", "int", 16, "Largest file a bot may write, in MiB.", _G, minimum=1)
_add("ARBITER_SANDBOX_TMP_MB", "int", 16, "Size of the bot's writable /tmp, in MiB.", _G, minimum=1)
_add("ARBITER_SANDBOX_SHM_MB", "int", 16, "Size of the bot's /dev/shm, in MiB.", _G, minimum=1)
_add("ARBITER_SANDBOX_CPU_SECONDS", "int", None, "CPU seconds per bot and match (default: the match's startup and "
     "game clocks plus 2 s).", _G, minimum=1)  # fmt: skip
_add("ARBITER_SANDBOX_OUTPUT_KB", "int", 4096, "All of a bot's answer lines in one match, in KiB.", _G, minimum=1)
_add("ARBITER_SANDBOX_SLOTS", "int", 64, "Bots that may run at once on this machine (one uid each).", _G, minimum=1)
_add("ARBITER_SANDBOX_FIRST_UID", "int", 60000, "First uid of the slot range (uids FIRST_UID .. FIRST_UID + SLOTS - 1 "
     "belong to this installation).", _G, minimum=1000)  # fmt: skip
_add("ARBITER_SANDBOX_DIR", "path", "", "Where per-match copies of the bots are made (default: under the temp dir).",
     _G)  # fmt: skip
_add("ARBITER_SANDBOX_LOCK_DIR", "path", "", "Where slot locks live; one directory for the whole machine, shared by "
     "every installation and container on it (default: /run/arbiter/slots).", _G)  # fmt: skip
_add("ARBITER_SANDBOX_SECCOMP", "bool", True, "Filter the bots' system calls with seccomp.", _G)
_add("ARBITER_SANDBOX_CGROUPS", "choice", "auto", "Control groups for bots: auto (v2 where delegated, else v1), v1, "
     "v2, or off (rlimits and sampling only; /healthz says which is in use).", _G,
     choices=("auto", "v1", "v2", "off"))  # fmt: skip
_add("ARBITER_SANDBOX_PIN_CPU", "bool", True, "Run the bots of one match on one CPU, matches spread over the "
     "worker's CPUs.", _G)  # fmt: skip
_add("ARBITER_SANDBOX_TMP_INODES", "int", 4096, "Files and directories a bot may create in /tmp and in /dev/shm "
     "each (needs a worker that may mount; otherwise only the memory cgroup bounds them).", _G, minimum=16)  # fmt: skip
_add("ARBITER_SANDBOX_SHARED_MEMORY", "bool", False, "Let bots use SysV IPC and memfd_create (off: they fail with "
     "EPERM; turn on only where the memory cgroup counts them).", _G)  # fmt: skip
_add("ARBITER_SANDBOX_WARM", "int", 2, "Sandbox launchers each worker process keeps started ahead, in their slots' "
     "control groups, for the settings of the last bot it started (a root worker with control groups; each holds a "
     "slot; 0: none). Where the worker mounts, each has its whole sandbox built for that bot's CPU limit, and a bot "
     "of the same limit only has its copy put in; a bot of another limit starts without one, and the launchers are "
     "made again for its limit.", _G, minimum=0)  # fmt: skip
_add("ARBITER_SANDBOX_WALL_FACTOR", "float", 2.0, "Wall-clock backstop: a move (or the match) may take this many "
     "times its CPU budget in real time, plus the grace below.", _G, minimum=1)  # fmt: skip
_add("ARBITER_SANDBOX_WALL_GRACE_MS", "int", 1000, "Wall-clock backstop: milliseconds added to each move's and the "
     "game's real-time allowance.", _G, minimum=0)  # fmt: skip
_add("ARBITER_SANDBOX_STOPPED_S", "float", 30.0, "Seconds a bot may stay stopped by something outside its "
     "sandbox (SIGSTOP from another user, a debugger) before its match is given up as the service's fault and "
     "played again; stopped time is never charged to the bot.", _G, minimum=1)  # fmt: skip
_add("ARBITER_ALLOW_UNSANDBOXED", "bool", False, "Run bots without bubblewrap where it cannot start (development "
     "only: bots are then not isolated).", _G)  # fmt: skip

_G = "Server-side builds (bots with a `build` in bot.json)"
_add("ARBITER_BUILD_SECONDS", "int", 120, "Real time a version's `build` command may take in the sandbox before it "
     "is stopped (every process it started) and the version fails.", _G, minimum=1)  # fmt: skip
_add("ARBITER_BUILD_MEMORY_MB", "int", 1024, "Memory of all a build's processes together, in MiB, enforced by its "
     "control group (each process's address space may be four times this: compilers reserve more than they use).",
     _G, minimum=64)  # fmt: skip
_add("ARBITER_BUILD_LARGE_SECONDS", "int", 300, "ARBITER_BUILD_SECONDS for a build by the larger toolchains "
     "(rustc, cargo, javac, go), which take longer than gcc on the same program.", _G, minimum=1)  # fmt: skip
_add("ARBITER_BUILD_LARGE_MEMORY_MB", "int", 2048, "ARBITER_BUILD_MEMORY_MB for a build by the larger toolchains "
     "(rustc, cargo, javac, go).", _G, minimum=1)  # fmt: skip
_add("ARBITER_BUILD_PROCESSES", "int", 64, "Processes and threads a build may have at once.", _G, minimum=1)
_add("ARBITER_BUILD_TMP_MB", "int", 256, "Size of a build's writable /tmp (compilers' temporary files), in MiB.", _G,
     minimum=1)  # fmt: skip
_add("ARBITER_BUILD_DISK_MB", "int", 256, "What a build may write to its /bot beyond its sources, in MiB: /bot is a "
     "file system of this size (plus the sources) while the build runs, so the kernel stops a bigger write.", _G,
     minimum=1)  # fmt: skip
_add("ARBITER_BUILD_FILES", "int", 8192, "Files and folders a build may make in its /bot beyond its sources, enforced "
     "by the kernel while the build runs (inodes of its file system).", _G, minimum=16)  # fmt: skip
_add("ARBITER_BUILD_ATTEMPTS", "int", 3, "Times a build is started before a version whose workers kept dying "
     "mid-build fails.", _G, minimum=1)  # fmt: skip
_add("ARBITER_BUILD_RESEND_S", "float", 60.0, "A version still building, unclaimed or with its worker past the build's "
     "time, for this long is sent to a worker again (by the sweeper).", _G, minimum=1)  # fmt: skip

_G = "Ratings"
_add("ARBITER_ELO_START", "float", 1500.0, "Elo of a new rating.", _G)
_add("ARBITER_ELO_K_NEW", "float", 40.0, "K factor while a rating has fewer than ARBITER_ELO_NEW_GAMES games.", _G,
     minimum=0)  # fmt: skip
_add("ARBITER_ELO_K", "float", 20.0, "K factor after that.", _G, minimum=0)
_add("ARBITER_ELO_NEW_GAMES", "int", 30, "Rated games a rating counts as new.", _G, minimum=0)
_add("ARBITER_PERFORMANCE_DEBOUNCE_S", "float", 30.0, "At most one refit of a tournament's performance table per "
     "this many seconds.", _G, minimum=0)  # fmt: skip
_add("ARBITER_PERFORMANCE_LIVE_MAX_PLAYERS", "int", 40, "Tournaments with at most this many players are fitted on "
     "the spot when their table is stale.", _G, minimum=0)  # fmt: skip
_add("ARBITER_RATINGS_APPLY_EVERY_S", "float", 10.0, "Seconds between beat's catch-ups of the ratings' applier: "
     "a rated match whose worker's request to apply it was lost is applied within this long.", _G,
     minimum=1.0)  # fmt: skip
_add("ARBITER_POOL_FIT_EVERY_S", "float", 120.0, "Seconds between checks for rating pools whose whole-history "
     "fit (the leaderboard's error bars) is behind; each such pool is refitted then.", _G, minimum=1)  # fmt: skip
_add("ARBITER_LEADERBOARD_CACHE_S", "float", 5.0, "Seconds a leaderboard API response is reused per viewer and URL "
     "(0: never).", _G, minimum=0)  # fmt: skip

_G = "Competitions"
_add("ARBITER_SCHEDULE_POLL_S", "float", 15.0, "Seconds between checks for due tournaments and schedules.", _G,
     minimum=1)  # fmt: skip
_add("ARBITER_LADDER_POLL_S", "float", 5.0, "Seconds between ladder top-ups.", _G, minimum=1)
_add("ARBITER_LADDER_OTHER_QUEUED_MAX", "int", 0, "Ladder matches are added only while at most this many other "
     "matches are queued.", _G, minimum=0)  # fmt: skip
_add("ARBITER_LADDER_WINDOW_H", "float", 24.0, "Hours of recent ladder games that keep every bot's share level.", _G,
     minimum=0)  # fmt: skip
_add("ARBITER_LADDER_RATING_SCALE", "float", 200.0, "Ladder opponents are drawn with weight "
     "exp(-(rating distance / scale)^2).", _G, minimum=1)  # fmt: skip
_add("ARBITER_CHALLENGES_PER_DAY", "int", 50, "Challenges a user may create per UTC day.", _G, minimum=0)
_add("ARBITER_CHALLENGE_MAX_GAMES", "int", 20, "Most games in one challenge.", _G, minimum=1)
_add("ARBITER_VERSION_TEST_ELO0", "float", 0.0, "A version test's H0 when the request names none (Elo).", _G)
_add("ARBITER_VERSION_TEST_ELO1", "float", 40.0, "A version test's H1 when the request names none (Elo).", _G)
_add("ARBITER_VERSION_TEST_DEFAULT_MAX_GAMES", "int", 2000, "A version test's cap on games when the request names "
     "none.", _G, minimum=2)  # fmt: skip
_add("ARBITER_VERSION_TEST_MAX_GAMES", "int", 20_000, "The most games a user may ask one version test to play.", _G,
     minimum=2)  # fmt: skip
_add("ARBITER_VERSION_TEST_PAIRS_IN_FLIGHT", "int", 4, "Pairs of a version test queued or running at once.", _G,
     minimum=1)  # fmt: skip

_G = "Uploads and limits"
_add("ARBITER_MAX_PACKAGE_BYTES", "int", 5 * 1024 * 1024, "Largest bot package accepted, in bytes.", _G, minimum=1)
_add("ARBITER_RATE_UPLOADS", "rate", "60/hour", "Uploads per user (new bots and versions).", _G)
_add("ARBITER_RATE_CHALLENGES", "rate", "120/hour", "Challenge requests per user.", _G)

_G = "Accounts, throttles and package bounds"
_add("ARBITER_CACHE_URL", "text", "", "Redis URL of the cache Django shares between processes (throttle counts, "
     "leaderboard responses) and with the workers (running matches' plies, for their pages), e.g. "
     "redis://host:6379/1; unset: a local-memory cache per process, the plies in the broker's Redis.",
     _G)  # fmt: skip
_add("ARBITER_RATE_LOGIN_IP", "rate", "30/hour", "Logins, token requests and sign-ups from one address.", _G)
_add("ARBITER_RATE_LOGIN_USER", "rate", "10/hour", "Logins and token requests naming one username, from anywhere.",
     _G)  # fmt: skip
_add("ARBITER_RATE_LOGIN_USER_ADDRESS", "rate", "5/hour", "Logins and token requests one address may still make "
     "for a username locked by ARBITER_RATE_LOGIN_USER (so a stranger cannot lock its owner out).", _G)  # fmt: skip
_add("ARBITER_RATE_SIGNUP_IP", "rate", "10/hour", "Sign-ups from one address.", _G)
_add("ARBITER_SIGNUP_OPEN", "bool", True, "Anyone may create an account through the API (off: only the admin).", _G)
_add("ARBITER_TOKEN_TTL_DAYS", "int", 90, "Days an API token works after it is issued (0: until revoked).", _G,
     minimum=0)  # fmt: skip
_add("ARBITER_MAX_UNPACKED_BYTES", "int", 50 * 1024 * 1024, "Largest total size of a package's files once "
     "unpacked, in bytes.", _G, minimum=1)  # fmt: skip
_add("ARBITER_MAX_COMPRESSION_RATIO", "float", 100.0, "Largest ratio of a whole archive's unpacked size to its size.",
     _G, minimum=1)  # fmt: skip
_add("ARBITER_PACKAGE_CACHE_MB", "int", 2048, "Size a worker's package cache is kept under; the least recently used "
     "packages go first.", _G, minimum=1)  # fmt: skip
_add("ARBITER_START_HOST", "text", "127.0.0.1", "Address `make start` serves on (0.0.0.0 to be reached from other "
     "machines).", _G)  # fmt: skip

_G = "Bot authors' kit"
_add("ARBITER_KIT_BUILD_SECONDS", "int", 300, "Real time a bot's `build` command may take in `arbiter check` and "
     "`arbiter upload` before it is stopped (all its processes).", _G, minimum=1)  # fmt: skip
_add("ARBITER_KIT_BUILD_MEMORY_MB", "int", 2048, "Address space of each process of a bot's `build` command "
     "(compilers fail cleanly past it).", _G, minimum=64)  # fmt: skip
_add("XDG_CONFIG_HOME", "text", "", "Where `arbiter login` keeps the server's address and the token, in "
     "`arbiter/config.json` (mode 0600) under it; `~/.config` when empty.", _G)  # fmt: skip

_G = "Fair play"
_add("ARBITER_RATING_MIN_GAMES", "int", 10, "Rated games a bot plays in a pool before its rank there is no longer "
     "marked provisional.", _G, minimum=0)  # fmt: skip
_add("ARBITER_RATING_MIN_OWNERS", "int", 2, "Distinct other owners whose bots a bot must have met in rated games "
     "before its rank on a public leaderboard is no longer marked provisional.", _G, minimum=0)  # fmt: skip
_add("ARBITER_RATINGS_ALL_PUBLIC", "bool", False, "Rate every game in the public pools, users' own tournaments and "
     "challenges included (a private deployment whose users trust each other; games between one owner's bots then "
     "stay unrated). Off: those games are rated in their organiser's own pools.", _G)  # fmt: skip
_add("ARBITER_TOURNAMENT_MAX_MATCHES", "int", 20_000, "Most matches one round robin may plan (an all-active round "
     "robin enters only as many bots as fit).", _G, minimum=1)  # fmt: skip
_add("ARBITER_TOURNAMENT_MAX_PARTICIPANTS", "int", 200, "Most bots in one round robin.", _G, minimum=2)
_add("ARBITER_SWISS_MAX_PARTICIPANTS", "int", 2000, "Most bots in one Swiss or knockout tournament (its matches "
     "count against ARBITER_TOURNAMENT_MAX_MATCHES too).", _G, minimum=2)  # fmt: skip
_add("ARBITER_QUEUED_MATCHES_PER_USER", "int", 50_000, "Most matches a user's tournaments may have queued at once.",
     _G, minimum=1)  # fmt: skip
_add("ARBITER_TOURNAMENTS_PER_HOUR", "int", 30, "Tournaments a user (not staff) may create per hour.", _G, minimum=0)
_add("ARBITER_TOURNAMENT_INLINE_MATCHES", "int", 2000, "A round robin of more matches is inserted by a task, this "
     "many per transaction, instead of in the request that starts it.", _G, minimum=1)  # fmt: skip

_G = "Tests and benchmarks"
_add("ARBITER_TEST_DATABASE_URL", "text", "", "PostgreSQL for the tests marked 'services' (they fail under CI "
     "without it).", _G)  # fmt: skip
_add("ARBITER_TEST_REDIS_URL", "text", "", "Redis for the tests marked 'services'.", _G)
_add("ARBITER_TEST_ARTIFACTS", "path", "test-artifacts", "Where browser tests save their screenshots.", _G)
_add("ARBITER_CHROMIUM", "path", "/usr/bin/chromium", "The Chromium the browser tests drive (Debian's package).", _G)
_add("ARBITER_BENCH_DATABASE_URL", "text", "", "PostgreSQL for make bench (default: ARBITER_TEST_DATABASE_URL, "
     "then the local server).", _G)  # fmt: skip
_add("ARBITER_BENCH_REDIS_URL", "text", "", "Redis for make bench (default: ARBITER_TEST_REDIS_URL, then the local "
     "server).", _G)  # fmt: skip


def markdown() -> str:
    """The reference table of docs/configuration.md, one section per group."""
    lines: list[str] = []
    group = None
    for setting in SETTINGS.values():
        if setting.group != group:
            group = setting.group
            lines += ["", f"## {group}", "", "| Variable | Default | Meaning |", "| --- | --- | --- |"]
        default = "(derived, see meaning)" if setting.default is None else _shown(setting.default)
        lines.append(f"| `{setting.name}` | {default} | {setting.doc} |")
    return "\n".join(lines).lstrip() + "\n"


def _shown(value: Any) -> str:
    if value in ("", []):
        return "(empty)"
    if isinstance(value, bool):
        return "on" if value else "off"
    return f"`{value}`"


def markdown_write(page: Path) -> None:
    """Replace the reference part of ``page`` (from its first section on) with :func:`markdown`."""
    text = page.read_text()
    head = text[: text.index("\n## ") + 1] if "\n## " in text else text + "\n"
    page.write_text(head + markdown())


if __name__ == "__main__":
    # python -m workers.config            print the reference table
    # python -m workers.config --write    bring docs/configuration.md up to date
    if sys.argv[1:] == ["--write"]:
        markdown_write(Path(__file__).resolve().parents[1] / "docs" / "configuration.md")
    else:
        print(markdown(), end="")
