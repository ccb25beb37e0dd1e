"""gunicorn settings for Arbiter's web process; every value can be overridden from the environment.

``gunicorn -c deploy/gunicorn.conf.py tournaments.wsgi``.  Workers are sync
processes: requests are short database reads and writes, and a process per
CPU core (plus one) keeps a slow client from holding the others up.  With
``ARBITER_LOG_FORMAT=json`` gunicorn's own error and access logs are JSON
lines too, like Django's and Celery's.
"""

from __future__ import annotations

import multiprocessing

from workers.config import read as _read  # gunicorn takes every known name here as a setting

bind = _read("ARBITER_BIND")
workers = _read("WEB_CONCURRENCY", default=multiprocessing.cpu_count() + 1)
threads = _read("ARBITER_WEB_THREADS")
# Uploads and standings of large tournaments can take a few seconds; nothing legitimate takes 60.
timeout = _read("ARBITER_WEB_TIMEOUT")
graceful_timeout = 30
keepalive = 5
# Recycle workers now and then so a slow leak never grows without bound.
max_requests = 2000
max_requests_jitter = 200
accesslog = "-"
errorlog = "-"
loglevel = _read("ARBITER_LOG_LEVEL")
# Headers like X-Forwarded-Proto are trusted only from these addresses (the proxy in front).
forwarded_allow_ips = _read("ARBITER_FORWARDED_ALLOW_IPS")

if _read("ARBITER_LOG_FORMAT") == "json":
    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "tournaments.ops.logs.JsonFormatter"}},
        "handlers": {"stdout": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stdout"}},
        # gunicorn merges this over its defaults key by key: a root without its "console" handler is needed.
        "root": {"handlers": ["stdout"], "level": "INFO"},
        "loggers": {
            "gunicorn.error": {"handlers": ["stdout"], "level": loglevel.upper(), "propagate": False},
            "gunicorn.access": {"handlers": ["stdout"], "level": "INFO", "propagate": False},
        },
    }
