"""The worker's trash: copies on disk renamed out of the way and deleted by a thread of its own.

Removing a directory is slow on some disks (milliseconds per rmdir), so a copy
made on disk (by a worker that may not mount) is renamed into a trash directory
beside it and deleted off every bot's path.  What it deletes may have been
written by a bot, so the thread survives any tree: the deletion is iterative
(``workers.sandbox.trees.tree_remove``), an error is counted, never raised out
of its loop, and should the thread die all the same, the next discard starts
another one and counts the restart.  ``trash_counts`` gives both counts to the
service, which shows them on ``/metrics``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import uuid
from pathlib import Path

from workers.sandbox.trees import tree_remove

log = logging.getLogger(__name__)

_lock = threading.Lock()
_wake = threading.Event()
_dirs: set[Path] = set()
_thread: threading.Thread | None = None
# Since this process started: entries the thread could not delete, and times it was started again.
_counts = {"undeleted": 0, "restarts": 0}


def discard(path: Path, trash: Path) -> None:
    """Remove ``path`` soon: renamed into ``trash`` (on the same disk), deleted in the background."""
    try:
        with contextlib.suppress(FileExistsError):
            os.mkdir(trash, 0o700)
        os.rename(path, trash / f"{path.name}-{uuid.uuid4().hex[:8]}")
    except FileNotFoundError:
        return
    except OSError:
        lost = tree_remove(path)
        with _lock:
            _counts["undeleted"] += lost
        return
    with _lock:
        _dirs.add(trash)
        _ensure_thread()
    _wake.set()


def _ensure_thread() -> None:
    """Start the thread if it is not running (under ``_lock``); a start after the first is a restart."""
    global _thread
    if _thread is not None and _thread.is_alive():
        return
    if _thread is not None:
        _counts["restarts"] += 1
        log.error("the trash thread had died; started again")
    _thread = threading.Thread(target=_empty_trash, name="arbiter-trash", daemon=True)
    _thread.start()


def trash_running() -> bool:
    """Whether the trash thread is alive (started again, if it died, by the next discard)."""
    with _lock:
        return _thread is not None and _thread.is_alive()


def trash_counts() -> dict[str, int]:
    """Entries the trash could not delete, and restarts of its thread, since this process started."""
    with _lock:
        return dict(_counts)


def _empty_trash() -> None:
    while True:
        _wake.wait()
        _wake.clear()
        with _lock:
            dirs = list(_dirs)
        for trash in dirs:
            lost = _empty_one(trash)
            if lost:
                with _lock:
                    _counts["undeleted"] += lost


def _empty_one(trash: Path) -> int:
    """Delete what is in ``trash``; how many entries could not be deleted (never raises)."""
    try:
        names = os.listdir(trash)
    except FileNotFoundError:
        return 0
    except Exception:
        log.exception("cannot list the trash %s", trash)
        return 1
    lost = 0
    for name in names:
        try:
            lost += tree_remove(trash / name)
        except Exception:  # a tree no rule foresaw: counted, and the thread goes on
            log.exception("cannot delete %s", trash / name)
            lost += 1
    return lost
