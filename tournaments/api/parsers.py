"""The JSON parser of every endpoint: a bound on nesting, and no text the database refuses.

Python's decoder recurses once per level and gives up with a RecursionError
near a thousand levels: a 6 KB body of brackets would be a 500. No request of
this API nests more than a few levels, so anything past ``MAX_DEPTH`` is a 400.
A string (or key) that decodes to NUL or a lone surrogate is a 400 too
(``tournaments/api/inputs.py``): PostgreSQL could not store it.

Both checks first look at the raw bytes, at C speed, and walk the decoded
document only when the bytes say they might fail: a body of a million numbers
costs no Python loop over its elements (list lengths are checked next, by the
serializers, before any element: ``tournaments/api/common.py``).
"""

from __future__ import annotations

import io
import re
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from tournaments.api.inputs import REFUSED_MESSAGE, json_text_refused

MAX_DEPTH = 32

# A \u escape of NUL or of a surrogate (pairs, for characters past U+FFFF, are fine once decoded).
_SUSPECT_ESCAPE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")


def json_depth_exceeds(value: Any, limit: int) -> bool:
    """Does ``value`` nest lists and objects more than ``limit`` levels deep? (Iterative: no recursion.)"""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


class DepthLimitedJSONParser(JSONParser):
    """DRF's JSON parser; bodies nested deeper than ``MAX_DEPTH``, or with refused text, are a 400."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        raw = stream.read() if stream is not None else b""
        try:
            data = super().parse(io.BytesIO(raw), media_type, parser_context)
        except RecursionError as exc:
            raise ParseError(f"JSON parse error - nested more than {MAX_DEPTH} levels deep.") from exc
        # Fewer brackets than levels allowed cannot nest too deep.
        if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and json_depth_exceeds(data, MAX_DEPTH):
            raise ParseError(f"JSON parse error - nested more than {MAX_DEPTH} levels deep.")
        if _SUSPECT_ESCAPE.search(raw) and json_text_refused(data):
            raise ParseError(f"JSON parse error - {REFUSED_MESSAGE}")
        return data
