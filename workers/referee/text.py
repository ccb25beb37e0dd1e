"""Bot text made safe: parsing an answer line, and text fit to store and to show anywhere.

Also the two bits of wording every command-line report shares: a counted noun
(``plural``) and a progress bar on stderr (``progress``).
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any


def parse_line(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):  # deep nesting must not crash the referee
        return None
    return value if isinstance(value, dict) else None


# Characters that steer a terminal or reorder text on a page: C0 controls but newline and tab,
# DEL, C1 controls, and the Unicode bidirectional overrides and isolates.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def clean_text(text: str) -> str:
    """Bot text made safe to store and to show anywhere (a terminal, a page, PostgreSQL).

    Control characters other than newline and tab (escape sequences, carriage returns, NUL,
    bidirectional overrides) become visible escapes such as ``\\x1b``; lone surrogates,
    which no encoder takes, become ``?``.
    """
    text = text.encode("utf-8", "replace").decode("utf-8")
    return _CONTROLS.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def short_text(value: Any) -> str | None:
    """The first 100 characters of a bot-given string, cleaned; None for anything else."""
    return clean_text(value[:100]) if isinstance(value, str) else None


def quoted(line: bytes, limit: int = 60) -> str:
    """A bot's output line as a protocol fault quotes it: its first ``limit`` characters, cleaned, in quotes."""
    text = line.decode("utf-8", "replace")
    cut = f"... ({len(line)} bytes)" if len(text) > limit else ""
    return f'"{clean_text(text[:limit])}"{cut}'


def answer_fault(line: bytes, answer: dict[str, Any] | None, *, start: bool) -> str:
    """What is wrong with an answer line (to ``start``, else to a turn), quoting it; "" when nothing is.

    The text follows "its answer": ``was not a JSON object: "e2e4"``.
    """
    if answer is None:
        return f"was not a JSON object: {quoted(line)}"
    if start and answer.get("type") != "ready":
        return f'was not {{"type": "ready"}}: {quoted(line)}'
    if not start and "move" not in answer:
        return f'had no "move": {quoted(line)}'
    if not start and not isinstance(answer["move"], str):
        return f'had a "move" that is not a string: {quoted(line)}'
    return ""


def plural(count: int | float, noun: str, many: str | None = None) -> str:
    """``1 game``, ``2 games``, ``0 games``: the count and its noun in good English.

    ``many`` is the plural when it is not the noun plus ``s`` (``1 match``, ``2 matches``).
    """
    word = noun if count == 1 else (many or f"{noun}s")
    return f"{count:g} {word}" if isinstance(count, float) else f"{count} {word}"


def progress(done: int, total: int, width: int = 30, note: str = "") -> None:
    """Redraw a progress bar on stderr (the same line each time): ``[####......] 4/10 note``."""
    filled = width * done // total if total else width
    sys.stderr.write(f"\r\033[K[{'#' * filled}{'.' * (width - filled)}] {done}/{total}{' ' + note if note else ''}")
    sys.stderr.flush()
