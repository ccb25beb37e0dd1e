"""One JSON object per log line, for log shippers (``ARBITER_LOG_FORMAT=json``).

Every line carries ``ts`` (UTC, ISO 8601 with milliseconds), ``level``,
``logger``, ``message``, ``process`` and ``thread``; a traceback goes in
``exc``, and anything passed with ``extra={...}`` becomes a field of its own
(values JSON cannot hold are written with ``repr``).  A line never spans two
lines, so ``jq`` and line-based collectors read the stream as is.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

# Attributes every LogRecord has; whatever else a record carries came from ``extra``.
_STANDARD = frozenset(vars(logging.LogRecord("x", logging.INFO, "x", 0, "x", None, None))) | {"message", "asctime"}


def _plain(value: Any) -> Any:
    """``value`` if json can write it, else its repr (a log line must never fail to format)."""
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value


class JsonFormatter(logging.Formatter):
    """Format a record as a single-line JSON object (see the module docstring for the fields)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "process": record.process,
            "thread": record.threadName,
        }
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exc"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in entry and not key.startswith("_"):
                entry[key] = _plain(value)
        # ensure_ascii keeps the line 7-bit clean; json escapes newlines inside strings.
        return json.dumps(entry, ensure_ascii=True, default=repr)
