"""Django settings for Arbiter, read from the environment.

With no environment at all this runs embedded: SQLite in WAL mode and Celery's
file-system transport, both under ``var/``, so a newcomer needs no server.
Production sets ``DATABASE_URL`` (PostgreSQL via psycopg 3) and ``REDIS_URL``
or ``CELERY_BROKER_URL``.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from kombu import Exchange as _Exchange
from kombu import Queue as _Queue

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("ARBITER_VAR_DIR", BASE_DIR / "var"))


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else default


# Without a SECRET_KEY we are on a developer's machine: debug on, fixed key.
_DEV = not os.environ.get("SECRET_KEY")
SECRET_KEY = os.environ.get("SECRET_KEY") or "arbiter-dev-only-insecure-secret-key-change-me-0123456789"
DEBUG = _env_bool("DEBUG", _DEV)
ALLOWED_HOSTS = [
    h.strip() for h in os.environ.get("ALLOWED_HOSTS", "*" if _DEV else "localhost").split(",") if h.strip()
]
CSRF_TRUSTED_ORIGINS = [o.strip() for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    # Arbiter: the project (it keeps the migrations from before the domain split), then one app per domain.
    "tournaments",
    "tournaments.games",
    "tournaments.accounts",
    "tournaments.bots",
    "tournaments.matches",
    "tournaments.ratings",
    "tournaments.competitions",
    "tournaments.web",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "tournaments.urls"
WSGI_APPLICATION = "tournaments.wsgi.application"
ASGI_APPLICATION = "tournaments.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# -- database ------------------------------------------------------------------

if os.environ.get("DATABASE_URL"):
    DATABASES = {"default": dj_database_url.parse(os.environ["DATABASE_URL"], conn_max_age=60)}
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": VAR_DIR / "arbiter.sqlite3",
            "OPTIONS": {
                # WAL lets the web server read while a worker writes; IMMEDIATE
                # takes the write lock at BEGIN so two writers queue instead of
                # failing with "database is locked" halfway through.
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=30000;",
                "transaction_mode": "IMMEDIATE",
                "timeout": 30,
            },
        }
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 4}},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"

# -- REST API --------------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "tournaments.api.pagination.Pagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "tournaments.api.errors.exception_handler",
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
}

# -- Celery ------------------------------------------------------------------------

_broker = os.environ.get("CELERY_BROKER_URL") or os.environ.get("REDIS_URL") or "filesystem://"
CELERY_BROKER_URL = _broker
if _broker.startswith("filesystem://"):
    _queue_dir = VAR_DIR / "broker" / "queue"
    _processed_dir = VAR_DIR / "broker" / "processed"
    _control_dir = VAR_DIR / "broker" / "control"
    for _d in (_queue_dir, _processed_dir, _control_dir):
        _d.mkdir(parents=True, exist_ok=True)
    # Producer and consumer share one folder: "out" of the web is "in" of the worker.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue_dir),
        "data_folder_out": str(_queue_dir),
        "processed_folder": str(_processed_dir),
        "store_processed": False,
        # Broadcast (pidbox) tables; kombu's default is ./control in the cwd.
        "control_folder": str(_control_dir),
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 6 * 3600}
# Separate deployments (or test runs) can share one Redis by using their own queue.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("ARBITER_QUEUE", "celery")
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# One match at a time per worker process: matches are long and uneven.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Periodic tasks are added in workers/celery_app.py (their intervals are settings below).
CELERY_BEAT_SCHEDULE: dict = {}

# -- kinds of work, start times, recurring schedules, ladders (docs/organisers.md) --
# One queue per kind of match, named after the default queue, so a test run's
# ARBITER_QUEUE isolates all of them.  A worker started without -Q consumes
# every queue in CELERY_TASK_QUEUES, taking them in turn (so no kind starves);
# ladder matches only exist while other work is scarce (the database decides).
ARBITER_QUEUES = {
    "tournament": CELERY_TASK_DEFAULT_QUEUE,
    "challenge": f"{CELERY_TASK_DEFAULT_QUEUE}.challenge",
    "version_test": f"{CELERY_TASK_DEFAULT_QUEUE}.version_test",
    "ladder": f"{CELERY_TASK_DEFAULT_QUEUE}.ladder",
}
# Short periodic tasks (beat) have their own queue: a long tournament queue cannot delay them.
ARBITER_BEAT_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}.beat"
CELERY_TASK_QUEUES = [
    _Queue(_name, _Exchange(_name), routing_key=_name)
    for _name in dict.fromkeys([*ARBITER_QUEUES.values(), ARBITER_BEAT_QUEUE])
]
# Seconds between beat checks for due tournaments and schedules, and between ladder top-ups.
ARBITER_SCHEDULE_POLL_S = float(os.environ.get("ARBITER_SCHEDULE_POLL_S", "15"))
ARBITER_LADDER_POLL_S = float(os.environ.get("ARBITER_LADDER_POLL_S", "5"))
# Ladder matches are added only while at most this many other matches are queued.
ARBITER_LADDER_OTHER_QUEUED_MAX = _env_int("ARBITER_LADDER_OTHER_QUEUED_MAX", 0)
# "Recent" ladder games, for keeping every bot's share level: this many hours back.
ARBITER_LADDER_WINDOW_H = float(os.environ.get("ARBITER_LADDER_WINDOW_H", "24"))
# Opponents are drawn with weight exp(-(rating distance / scale) ** 2).
ARBITER_LADDER_RATING_SCALE = float(os.environ.get("ARBITER_LADDER_RATING_SCALE", "200"))
# -- end kinds of work, start times, recurring schedules, ladders --

# -- Arbiter -----------------------------------------------------------------------

ARBITER_ELO_START = 1500.0
ARBITER_ELO_K_NEW = float(os.environ.get("ARBITER_ELO_K_NEW", "40"))
ARBITER_ELO_K = float(os.environ.get("ARBITER_ELO_K", "20"))
ARBITER_ELO_NEW_GAMES = _env_int("ARBITER_ELO_NEW_GAMES", 30)
# Infrastructure errors re-run a match this many times in all before it is ERRORED.
ARBITER_MATCH_MAX_ATTEMPTS = _env_int("ARBITER_MATCH_MAX_ATTEMPTS", 3)
ARBITER_MAX_PACKAGE_BYTES = _env_int("ARBITER_MAX_PACKAGE_BYTES", 5 * 1024 * 1024)
ARBITER_PACKAGE_CACHE = Path(os.environ.get("ARBITER_PACKAGE_CACHE", VAR_DIR / "packages"))
# Extra seconds on top of a match's clocks before Celery's time limits strike.
ARBITER_TASK_MARGIN_S = _env_int("ARBITER_TASK_MARGIN_S", 60)

# -- leases, sweeper, dispatcher (docs/operations.md) -------------------------------
# A running match is its worker's while the worker renews the lease (a heartbeat every
# ARBITER_HEARTBEAT_S); the sweeper re-runs a match whose lease is older than ARBITER_LEASE_S.
ARBITER_LEASE_S = float(os.environ.get("ARBITER_LEASE_S", "180"))
ARBITER_HEARTBEAT_S = float(os.environ.get("ARBITER_HEARTBEAT_S", "20"))
ARBITER_SWEEP_EVERY_S = float(os.environ.get("ARBITER_SWEEP_EVERY_S", "30"))
# The dispatcher re-sends a QUEUED match whose last message is older than this (lost by the broker).
ARBITER_DISPATCH_AFTER_S = float(os.environ.get("ARBITER_DISPATCH_AFTER_S", "300"))
ARBITER_DISPATCH_EVERY_S = float(os.environ.get("ARBITER_DISPATCH_EVERY_S", "60"))
ARBITER_DISPATCH_BATCH = _env_int("ARBITER_DISPATCH_BATCH", 2000)
# PostgreSQL ends a session left idle inside a transaction this long, releasing its row
# locks: a worker cut off mid-transaction cannot stall everyone else's results (0: never).
ARBITER_DB_IDLE_TX_TIMEOUT_S = _env_int("ARBITER_DB_IDLE_TX_TIMEOUT_S", 60)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and ARBITER_DB_IDLE_TX_TIMEOUT_S > 0:
    _db_options = DATABASES["default"].setdefault("OPTIONS", {})
    _db_options["options"] = (
        f"{_db_options.get('options', '')} -c idle_in_transaction_session_timeout={ARBITER_DB_IDLE_TX_TIMEOUT_S * 1000}"
    ).strip()
# -- end leases, sweeper, dispatcher -------------------------------------------------

# -- public API: schema and docs, filters, throttles, challenges -------------------
# (drf-spectacular serves Swagger UI and Redoc from the sidecar package: no CDN.)
REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"] = "tournaments.api.schema.ApiAutoSchema"
REST_FRAMEWORK["DEFAULT_FILTER_BACKENDS"] = ["django_filters.rest_framework.DjangoFilterBackend"]
# Per-user rates ("number/second|minute|hour|day") of the throttled scopes; see tournaments.api.throttles.
ARBITER_THROTTLE_RATES = {
    "uploads": os.environ.get("ARBITER_RATE_UPLOADS", "60/hour"),
    "challenges": os.environ.get("ARBITER_RATE_CHALLENGES", "120/hour"),
}
ARBITER_CHALLENGES_PER_DAY = _env_int("ARBITER_CHALLENGES_PER_DAY", 50)
ARBITER_CHALLENGE_MAX_GAMES = _env_int("ARBITER_CHALLENGE_MAX_GAMES", 20)
# -- version tests: the most games one test may play, and pairs queued or running at once --
ARBITER_VERSION_TEST_MAX_GAMES = _env_int("ARBITER_VERSION_TEST_MAX_GAMES", 400)
ARBITER_VERSION_TEST_PAIRS_IN_FLIGHT = _env_int("ARBITER_VERSION_TEST_PAIRS_IN_FLIGHT", 4)
# -- end version tests --
SPECTACULAR_SETTINGS = {
    "TITLE": "Arbiter API",
    "DESCRIPTION": "Upload game-playing bots, run round robins and challenges, read matches and Elo ratings.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/",
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "MatchStatusEnum": "tournaments.matches.models.Match.Status",
        "TournamentStatusEnum": "tournaments.competitions.models.Tournament.Status",
        "VersionTestStatusEnum": "tournaments.competitions.models.VersionTest.Status",  # version tests
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "tournaments.api.schema.add_error_responses",
    ],
}
# A CSRF failure under /api/ (session cookie without its token) answers in the error shape too.
CSRF_FAILURE_VIEW = "tournaments.api.errors.csrf_failure"
# -- end public API ----------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        "tournaments": {"handlers": ["console"], "level": os.environ.get("ARBITER_LOG_LEVEL", "INFO")},
        "workers": {"handlers": ["console"], "level": os.environ.get("ARBITER_LOG_LEVEL", "INFO")},
    },
}

# -- deployment: static files, HTTPS, JSON logs (docs/deploy.md) --------------------
import contextlib  # noqa: E402

# WhiteNoise serves /static/ from gunicorn itself, right after SecurityMiddleware.
MIDDLEWARE.insert(
    MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1, "whitenoise.middleware.WhiteNoiseMiddleware"
)
# Images build it outside var/ (a volume there would hide it): ARBITER_STATIC_ROOT=/app/static.
STATIC_ROOT = Path(os.environ.get("ARBITER_STATIC_ROOT", VAR_DIR / "static"))
with contextlib.suppress(OSError):  # WhiteNoise warns about a missing root on every start
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Gzip/brotli copies made by collectstatic; no manifest, so pages render before collectstatic too.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Until collectstatic has run, serve straight from the apps (a checkout with DEBUG=0 keeps its CSS).
WHITENOISE_USE_FINDERS = not (STATIC_ROOT / "admin").is_dir()

# ARBITER_HTTPS=1: the site is reached over HTTPS only (TLS ends here or at a proxy).
if _env_bool("ARBITER_HTTPS", False):
    SECURE_SSL_REDIRECT = _env_bool("ARBITER_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = _env_int("ARBITER_HSTS_SECONDS", 365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = _env_bool("ARBITER_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = _env_bool("ARBITER_HSTS_PRELOAD", True)
    # Probes and scrapers talk plain HTTP inside the network; a redirect would read as a failure.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^metrics$"]
# Behind a TLS-terminating proxy that sets X-Forwarded-Proto (and strips it from clients).
if _env_bool("ARBITER_BEHIND_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# ARBITER_LOG_FORMAT=json: one JSON object per line from Django, Celery and our loggers alike.
if os.environ.get("ARBITER_LOG_FORMAT", "").strip().lower() == "json":
    LOGGING["formatters"] = {"json": {"()": "tournaments.ops.logs.JsonFormatter"}}
    LOGGING["handlers"]["console"]["formatter"] = "json"
    LOGGING["root"] = {"handlers": ["console"], "level": os.environ.get("ARBITER_LOG_LEVEL", "INFO")}
    for _name in ("tournaments", "workers"):
        LOGGING["loggers"][_name]["propagate"] = False
    # Celery would otherwise replace the root handler with its own plain-text one.
    CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# -- end deployment ------------------------------------------------------------------

# -- leaderboard responses ---------------------------------------------------------
# Seconds a leaderboard API response is reused per viewer and URL (0: never).  Ratings
# change when matches finish; a few seconds of lag buys a 10x cheaper hot endpoint.
ARBITER_LEADERBOARD_CACHE_S = float(os.environ.get("ARBITER_LEADERBOARD_CACHE_S", "5"))

# The covering index on bot versions (leaderboard counts) is a PostgreSQL feature; SQLite,
# the embedded default, builds it without the extra column and Django warns on every
# command.  The index still works there, just without the covered column.
SILENCED_SYSTEM_CHECKS = ["models.W040"]
ARBITER_PERFORMANCE_DEBOUNCE_S = float(os.environ.get("ARBITER_PERFORMANCE_DEBOUNCE_S", "30"))
