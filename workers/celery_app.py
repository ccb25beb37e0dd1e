"""The Celery application, configured from Django settings (``CELERY_*``).

Run a worker with ``celery -A workers.celery_app worker``.  The broker is
Redis in production and Celery's file-system transport under ``var/``
when nothing is configured (see tournaments/settings.py).
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")

# Tasks live in workers/tasks.py, outside the Django app, so name the module;
# it is imported when the worker starts, after Celery's Django fix-up has set Django up.
app = Celery("arbiter", include=["workers.tasks"])
app.config_from_object("django.conf:settings", namespace="CELERY")
