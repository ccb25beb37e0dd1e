"""Worker start-up for the games app: engines added since the last migrate show up without one."""

from __future__ import annotations

import logging
from typing import Any

from celery.signals import worker_ready

from tournaments.games.services import game_sync

logger = logging.getLogger(__name__)


@worker_ready.connect
def _games_sync_at_worker_start(**kwargs: Any) -> None:
    try:
        game_sync()
    except Exception:  # a worker without a migrated database still starts; the task will say why
        logger.exception("game_sync at worker start failed")
