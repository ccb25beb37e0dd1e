"""Django settings for Arbiter, read from the environment through ``workers.config``.

With no environment at all this runs embedded: SQLite in WAL mode and Celery's
file-system transport, both under ``var/``, so a newcomer needs no server.
Production sets ``DATABASE_URL`` (PostgreSQL via psycopg 3) and ``REDIS_URL``
or ``CELERY_BROKER_URL``.  Every variable is listed, with its default and
meaning, in ``docs/configuration.md``; a malformed one stops the process here,
at start, with a message naming it.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from kombu import Exchange, Queue

from workers import config
from workers.sandbox.limits import SandboxLimits

try:
    ENV: dict[str, Any] = config.read_all()
    ARBITER_SANDBOX = SandboxLimits.from_env()
except config.ConfigError as exc:
    raise ImproperlyConfigured(f"Arbiter's configuration: {exc}") from None

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(ENV["ARBITER_VAR_DIR"] or BASE_DIR / "var")

# -- Django ----------------------------------------------------------------------------

# Without a SECRET_KEY we are on a developer's machine: debug on, fixed key.
_DEV = not ENV["SECRET_KEY"]
SECRET_KEY = ENV["SECRET_KEY"] or "arbiter-dev-only-insecure-secret-key-change-me-0123456789"
DEBUG = _DEV if ENV["DEBUG"] is None else ENV["DEBUG"]
ALLOWED_HOSTS = ENV["ALLOWED_HOSTS"] if ENV["ALLOWED_HOSTS"] is not None else (["*"] if _DEV else ["localhost"])
CSRF_TRUSTED_ORIGINS = ENV["CSRF_TRUSTED_ORIGINS"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # runserver leaves /static/ to WhiteNoise, as gunicorn does (Django's own handler answers
    # a path such as /static/../x with a 500).
    "whitenoise.runserver_nostatic",
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
    # WhiteNoise serves /static/ from gunicorn itself, right after SecurityMiddleware.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Paths and query parameters with text PostgreSQL refuses (NUL) stop here, before any view reads them.
    "tournaments.api.inputs.InputCheckMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The admin's and the browsable API's login forms share the API's login throttle.
    "tournaments.accounts.throttles.LoginThrottleMiddleware",
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

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # Not a check: every password change (page, reset, admin, changepassword) revokes the user's API tokens.
    {"NAME": "tournaments.accounts.passwords.TokensRevokedOnChange"},
]

# The pages' own sign-in (tournaments/web/urls.py).
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/me/bots/"
LOGOUT_REDIRECT_URL = "/games/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The covering index on bot versions (leaderboard counts) is a PostgreSQL feature; SQLite,
# the embedded default, builds it without the extra column and Django warns on every command.
SILENCED_SYSTEM_CHECKS = ["models.W040"]

# -- database ------------------------------------------------------------------------------

if ENV["DATABASE_URL"]:
    DATABASES = {"default": dj_database_url.parse(ENV["DATABASE_URL"], conn_max_age=60)}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and ENV["ARBITER_DB_IDLE_TX_TIMEOUT_S"] > 0:
        # PostgreSQL ends a session left idle inside a transaction this long, releasing its row
        # locks: a worker cut off mid-transaction cannot stall everyone else's results.
        _options = DATABASES["default"].setdefault("OPTIONS", {})
        _timeout_ms = ENV["ARBITER_DB_IDLE_TX_TIMEOUT_S"] * 1000
        _options["options"] = f"{_options.get('options', '')} -c idle_in_transaction_session_timeout={_timeout_ms}"
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(VAR_DIR / "arbiter.sqlite3"),
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

# -- static files and HTTPS ----------------------------------------------------------------

STATIC_URL = "static/"
# Images build it outside var/ (a volume there would hide it): ARBITER_STATIC_ROOT=/app/static.
STATIC_ROOT = Path(ENV["ARBITER_STATIC_ROOT"] or VAR_DIR / "static")
with contextlib.suppress(OSError):  # WhiteNoise warns about a missing root on every start
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Gzip/brotli copies made by collectstatic; no manifest, so pages render before collectstatic too.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Until collectstatic has run, serve straight from the apps (a checkout with DEBUG=0 keeps its CSS).
WHITENOISE_USE_FINDERS = not (STATIC_ROOT / "admin").is_dir()

if ENV["ARBITER_HTTPS"]:
    SECURE_SSL_REDIRECT = ENV["ARBITER_SSL_REDIRECT"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = ENV["ARBITER_HSTS_SECONDS"]
    SECURE_HSTS_INCLUDE_SUBDOMAINS = ENV["ARBITER_HSTS_INCLUDE_SUBDOMAINS"]
    SECURE_HSTS_PRELOAD = ENV["ARBITER_HSTS_PRELOAD"]
    # Probes and scrapers talk plain HTTP inside the network; a redirect would read as a failure.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^metrics$"]
if ENV["ARBITER_BEHIND_PROXY"]:
    # A TLS-terminating proxy sets X-Forwarded-Proto (and strips it from clients).
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# -- REST API ------------------------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "tournaments.accounts.authentication.HashedTokenAuthentication",
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
    "DEFAULT_SCHEMA_CLASS": "tournaments.api.schema.ApiAutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PARSER_CLASSES": [
        "tournaments.api.parsers.DepthLimitedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
}
# drf-spectacular serves Swagger UI and Redoc from the sidecar package: no CDN.
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
        "VersionTestStatusEnum": "tournaments.competitions.models.VersionTest.Status",
        "TournamentFormatEnum": "tournaments.competitions.models.Tournament.Format",
        "ScheduleFormatEnum": "tournaments.competitions.models.schedules.SCHEDULE_FORMATS",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "tournaments.api.schema.add_error_responses",
    ],
}
# A CSRF failure under /api/ (session cookie without its token) answers in the error shape too.
CSRF_FAILURE_VIEW = "tournaments.api.errors.csrf_failure"
# Per-user rates of the throttled scopes (tournaments.api.throttles).
ARBITER_THROTTLE_RATES = {
    "uploads": ENV["ARBITER_RATE_UPLOADS"],
    "challenges": ENV["ARBITER_RATE_CHALLENGES"],
    "login_ip": ENV["ARBITER_RATE_LOGIN_IP"],
    "login_user": ENV["ARBITER_RATE_LOGIN_USER"],
    "login_user_address": ENV["ARBITER_RATE_LOGIN_USER_ADDRESS"],
    "signup_ip": ENV["ARBITER_RATE_SIGNUP_IP"],
}
# Throttle counts live in the cache: with the default local-memory cache each process counts
# on its own, so a deployment of several web processes points them all at one Redis.
if ENV["ARBITER_CACHE_URL"]:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": ENV["ARBITER_CACHE_URL"],
            "KEY_PREFIX": "arbiter",
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# -- Celery --------------------------------------------------------------------------------

# Embedded: workers/broker_files.py, kombu's file-system transport writing each message file
# whole (a temporary name, then a rename) and quarantining files that do not parse.  Kombu's own
# "filesystem://" still works, without those guarantees (docs/operations.md).
CELERY_BROKER_URL = ENV["CELERY_BROKER_URL"] or ENV["REDIS_URL"] or "arbiterfs://"
if CELERY_BROKER_URL.startswith(("arbiterfs://", "filesystem://")):
    _broker_dir = VAR_DIR / "broker"
    for _part in ("queue", "processed", "control", "quarantine"):
        (_broker_dir / _part).mkdir(parents=True, exist_ok=True)
    # Producer and consumer share one folder: "out" of the web is "in" of the worker.
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, Any] = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        # A consumer takes a file by renaming it here: the same file system as the queue.
        "processed_folder": str(_broker_dir / "processed"),
        "store_processed": False,
        "quarantine_folder": str(_broker_dir / "quarantine"),
        "read_wait_s": ENV["ARBITER_BROKER_READ_WAIT_S"],
        "polling_interval": ENV["ARBITER_BROKER_POLL_S"],
        # Broadcast (pidbox) tables; kombu's default is ./control in the cwd.
        "control_folder": str(_broker_dir / "control"),
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 6 * 3600}
if CELERY_BROKER_URL.startswith("redis://"):
    # kombu's Redis transport with a guard that keeps a worker alive when Redis goes away
    # (workers/celery_app.py says how it would otherwise exit).
    CELERY_BROKER_TRANSPORT = "workers.celery_app:RedisTransport"
# Separate deployments (or test runs) can share one Redis by using their own queue.
CELERY_TASK_DEFAULT_QUEUE = ENV["ARBITER_QUEUE"]
# Running matches' plies for their pages (tournaments/matches/live.py): the shared cache's Redis,
# else the broker's; embedded, small files under the var directory that web and workers share.
ARBITER_LIVE_REDIS_URL = ENV["ARBITER_CACHE_URL"] or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else ""
)
ARBITER_LIVE_DIR = VAR_DIR / "live"
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# One match at a time per worker process: matches are long and uneven.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Celery's Django fixup closes every database connection after each task unless this is set,
# so without it a worker opened a new PostgreSQL backend for every match and CONN_MAX_AGE did
# nothing.  Set, the fixup only closes them every 2 x this many tasks (never, in practice);
# workers/celery_app.py ages them as Django's requests do instead (CONN_MAX_AGE, broken ones).
CELERY_DB_REUSE_MAX = 1_000_000
# Celery's own limit (100 tries, about 46 minutes of a broker outage) ends every worker at
# once; a worker that waits costs nothing, and the supervisor would only start it again.
CELERY_BROKER_CONNECTION_MAX_RETRIES = ENV["ARBITER_BROKER_RETRIES"] or None
# One queue for matches (a message names no match: the database picks the fairest, see
# tournaments/matches/queue.py) and one for short periodic tasks (beat), which a long
# queue of matches must never delay.
ARBITER_BEAT_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}.beat"
CELERY_TASK_QUEUES = [
    Queue(name, Exchange(name), routing_key=name) for name in (CELERY_TASK_DEFAULT_QUEUE, ARBITER_BEAT_QUEUE)
]

# -- logging -------------------------------------------------------------------------------

_LOG_LEVEL = ENV["ARBITER_LOG_LEVEL"].upper()
LOGGING: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        "tournaments": {"handlers": ["console"], "level": _LOG_LEVEL},
        "workers": {"handlers": ["console"], "level": _LOG_LEVEL},
    },
}
if ENV["ARBITER_LOG_FORMAT"] == "json":
    # One JSON object per line from Django, Celery and our loggers alike.
    LOGGING["formatters"] = {"json": {"()": "tournaments.ops.logs.JsonFormatter"}}
    LOGGING["handlers"]["console"]["formatter"] = "json"
    LOGGING["root"] = {"handlers": ["console"], "level": _LOG_LEVEL}
    for _logger in LOGGING["loggers"].values():
        _logger["propagate"] = False
    # Celery would otherwise replace the root handler with its own plain-text one.
    CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# -- Arbiter -------------------------------------------------------------------------------
# Each is documented in docs/configuration.md under its variable's name.

ARBITER_PACKAGE_CACHE = Path(ENV["ARBITER_PACKAGE_CACHE"] or VAR_DIR / "packages")
ARBITER_METRICS_TOKEN: str = ENV["ARBITER_METRICS_TOKEN"]
ARBITER_HEALTH_SANDBOX: bool = ENV["ARBITER_HEALTH_SANDBOX"]
ARBITER_HEALTH_SANDBOX_TTL: float = ENV["ARBITER_HEALTH_SANDBOX_TTL"]
# Matches, leases and recovery (docs/operations.md).
ARBITER_MATCH_MAX_ATTEMPTS: int = ENV["ARBITER_MATCH_MAX_ATTEMPTS"]
ARBITER_TASK_MARGIN_S: int = ENV["ARBITER_TASK_MARGIN_S"]
ARBITER_LEASE_S: float = ENV["ARBITER_LEASE_S"]
ARBITER_HEARTBEAT_S: float = ENV["ARBITER_HEARTBEAT_S"]
ARBITER_CANCEL_CHECK_S: float = ENV["ARBITER_CANCEL_CHECK_S"]
ARBITER_OWNER_SHARE: float = ENV["ARBITER_OWNER_SHARE"]
ARBITER_SWEEP_EVERY_S: float = ENV["ARBITER_SWEEP_EVERY_S"]
ARBITER_RESULT_RETRY_S: float = ENV["ARBITER_RESULT_RETRY_S"]
ARBITER_RUN_LOOP_S: float = ENV["ARBITER_RUN_LOOP_S"]
ARBITER_WORKER_MIN_FREE_MB: int = ENV["ARBITER_WORKER_MIN_FREE_MB"]
ARBITER_WORKER_CHECK_EVERY_S: float = ENV["ARBITER_WORKER_CHECK_EVERY_S"]
ARBITER_IDEMPOTENCY_TTL_H: float = ENV["ARBITER_IDEMPOTENCY_TTL_H"]
ARBITER_DISPATCH_EVERY_S: float = ENV["ARBITER_DISPATCH_EVERY_S"]
ARBITER_DISPATCH_BATCH: int = ENV["ARBITER_DISPATCH_BATCH"]
ARBITER_RUNTIME_WAIT_S: float = ENV["ARBITER_RUNTIME_WAIT_S"]
# Server-side builds (docs/bots.md).
ARBITER_BUILD_SECONDS: int = ENV["ARBITER_BUILD_SECONDS"]
ARBITER_BUILD_ATTEMPTS: int = ENV["ARBITER_BUILD_ATTEMPTS"]
ARBITER_BUILD_RESEND_S: float = ENV["ARBITER_BUILD_RESEND_S"]
# Ratings (docs/ratings.md).
ARBITER_ELO_START: float = ENV["ARBITER_ELO_START"]
ARBITER_ELO_K_NEW: float = ENV["ARBITER_ELO_K_NEW"]
ARBITER_ELO_K: float = ENV["ARBITER_ELO_K"]
ARBITER_ELO_NEW_GAMES: int = ENV["ARBITER_ELO_NEW_GAMES"]
ARBITER_RATING_MIN_GAMES: int = ENV["ARBITER_RATING_MIN_GAMES"]
ARBITER_RATING_MIN_OWNERS: int = ENV["ARBITER_RATING_MIN_OWNERS"]
ARBITER_RATINGS_ALL_PUBLIC: bool = ENV["ARBITER_RATINGS_ALL_PUBLIC"]
ARBITER_TOURNAMENT_MAX_MATCHES: int = ENV["ARBITER_TOURNAMENT_MAX_MATCHES"]
ARBITER_TOURNAMENT_MAX_PARTICIPANTS: int = ENV["ARBITER_TOURNAMENT_MAX_PARTICIPANTS"]
ARBITER_SWISS_MAX_PARTICIPANTS: int = ENV["ARBITER_SWISS_MAX_PARTICIPANTS"]
ARBITER_QUEUED_MATCHES_PER_USER: int = ENV["ARBITER_QUEUED_MATCHES_PER_USER"]
ARBITER_TOURNAMENTS_PER_HOUR: int = ENV["ARBITER_TOURNAMENTS_PER_HOUR"]
ARBITER_TOURNAMENT_INLINE_MATCHES: int = ENV["ARBITER_TOURNAMENT_INLINE_MATCHES"]
ARBITER_PERFORMANCE_DEBOUNCE_S: float = ENV["ARBITER_PERFORMANCE_DEBOUNCE_S"]
ARBITER_PERFORMANCE_LIVE_MAX_PLAYERS: int = ENV["ARBITER_PERFORMANCE_LIVE_MAX_PLAYERS"]
ARBITER_RATINGS_APPLY_EVERY_S: float = ENV["ARBITER_RATINGS_APPLY_EVERY_S"]
ARBITER_POOL_FIT_EVERY_S: float = ENV["ARBITER_POOL_FIT_EVERY_S"]
ARBITER_LEADERBOARD_CACHE_S: float = ENV["ARBITER_LEADERBOARD_CACHE_S"]
ARBITER_LIVE_POLL_MS: int = ENV["ARBITER_LIVE_POLL_MS"]
# Competitions (docs/organisers.md).
ARBITER_SCHEDULE_POLL_S: float = ENV["ARBITER_SCHEDULE_POLL_S"]
ARBITER_LADDER_POLL_S: float = ENV["ARBITER_LADDER_POLL_S"]
ARBITER_LADDER_OTHER_QUEUED_MAX: int = ENV["ARBITER_LADDER_OTHER_QUEUED_MAX"]
ARBITER_LADDER_WINDOW_H: float = ENV["ARBITER_LADDER_WINDOW_H"]
ARBITER_LADDER_RATING_SCALE: float = ENV["ARBITER_LADDER_RATING_SCALE"]
ARBITER_CHALLENGES_PER_DAY: int = ENV["ARBITER_CHALLENGES_PER_DAY"]
ARBITER_CHALLENGE_MAX_GAMES: int = ENV["ARBITER_CHALLENGE_MAX_GAMES"]
ARBITER_VERSION_TEST_ELO0: float = ENV["ARBITER_VERSION_TEST_ELO0"]
ARBITER_VERSION_TEST_ELO1: float = ENV["ARBITER_VERSION_TEST_ELO1"]
ARBITER_VERSION_TEST_DEFAULT_MAX_GAMES: int = ENV["ARBITER_VERSION_TEST_DEFAULT_MAX_GAMES"]
ARBITER_VERSION_TEST_MAX_GAMES: int = ENV["ARBITER_VERSION_TEST_MAX_GAMES"]
ARBITER_VERSION_TEST_PAIRS_IN_FLIGHT: int = ENV["ARBITER_VERSION_TEST_PAIRS_IN_FLIGHT"]
# Uploads.
ARBITER_MAX_PACKAGE_BYTES: int = ENV["ARBITER_MAX_PACKAGE_BYTES"]
# Accounts and package bounds (docs/deploy.md).
ARBITER_BEHIND_PROXY: bool = ENV["ARBITER_BEHIND_PROXY"]
ARBITER_SIGNUP_OPEN: bool = ENV["ARBITER_SIGNUP_OPEN"]
ARBITER_TOKEN_TTL_DAYS: int = ENV["ARBITER_TOKEN_TTL_DAYS"]
ARBITER_PACKAGE_CACHE_MB: int = ENV["ARBITER_PACKAGE_CACHE_MB"]
