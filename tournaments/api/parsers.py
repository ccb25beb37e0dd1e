"""The JSON parser of every endpoint, with a bound on nesting.

Python's decoder recurses once per level and gives up with a RecursionError
near a thousand levels: a 6 KB body of brackets would be a 500. No request of
this API nests more than a few levels, so anything past ``MAX_DEPTH`` is a 400.
"""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 32


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
    """DRF's JSON parser; bodies nested deeper than ``MAX_DEPTH`` are refused with a 400."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError(f"JSON parse error - nested more than {MAX_DEPTH} levels deep.") from exc
        if json_depth_exceeds(data, MAX_DEPTH):
            raise ParseError(f"JSON parse error - nested more than {MAX_DEPTH} levels deep.")
        return data
