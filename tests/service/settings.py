"""Settings for the test suite: the real settings with an in-memory broker.

Messages sent while tests run go nowhere; tests that need a worker (the
end-to-end test) start real processes with the real settings instead.
"""

import tempfile
from pathlib import Path

from tournaments.settings import *  # noqa: F403

CELERY_BROKER_URL = "memory://"
CELERY_BROKER_TRANSPORT_OPTIONS: dict = {}
# Hashing demo passwords slowly buys nothing in tests.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
ARBITER_PACKAGE_CACHE = Path(tempfile.gettempdir()) / "arbiter-test-packages"
# Tests read leaderboards right after changing ratings; the one test of the response
# cache turns it on itself.
ARBITER_LEADERBOARD_CACHE_S = 0
# One match per run_next call, as the tests that count a match's statements expect; the test of
# the loop (test_a_task_plays_queued_matches_back_to_back.py) turns it on itself.
ARBITER_RUN_LOOP_S = 0.0
