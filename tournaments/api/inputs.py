"""Text the database cannot store, refused at the door.

PostgreSQL's text and jsonb refuse the NUL character, and UTF-8 cannot encode
a lone surrogate (U+D800-U+DFFF, which JSON's ``\\ud800`` escapes can make): a
query with either fails inside the database driver, a 500.  Every path part
and query parameter of every URL (API, pages, admin) passes
``InputCheckMiddleware``; JSON bodies pass ``json_text_refused`` in the one
JSON parser (``tournaments/api/parsers.py``); form fields refuse NUL through
Django's and DRF's own character fields.  Bytes that are not UTF-8 never get
this far: Django decodes paths and query strings with replacement characters.
"""

from __future__ import annotations

import re
from typing import Any

from django.core.exceptions import BadRequest
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse

# NUL, and any surrogate: a decoded str holds one only when it is lone (pairs decode to one character).
_REFUSED = re.compile("[\x00\ud800-\udfff]")

REFUSED_MESSAGE = "Text may not hold the NUL character or a lone surrogate."


def text_refused(text: str) -> bool:
    """Does ``text`` hold a character the database refuses (NUL, a lone surrogate)?"""
    return _REFUSED.search(text) is not None


def json_text_refused(value: Any) -> bool:
    """Does any string of a decoded JSON document (keys included) hold a refused character? (Iterative.)"""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if text_refused(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _refused_parameter(request: HttpRequest) -> str | None:
    """The name of the first query parameter whose name or a value is refused."""
    for name, values in request.GET.lists():
        if text_refused(name) or any(text_refused(value) for value in values):
            return name
    return None


class InputCheckMiddleware:
    """A path with a refused character is a 404 (no such page); a query parameter with one is a 400.

    Under ``/api/`` both answer in the API's error shape; elsewhere as Django's 404 and 400 pages.
    """

    def __init__(self, get_response):  # type: ignore[no-untyped-def]
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # Imported here: the errors module loads DRF's settings, which load the parser, which imports this module.
        from tournaments.api.errors import error_body, not_found_json

        api = request.path_info.startswith("/api/")
        if text_refused(request.path_info):
            if api:
                return not_found_json(request)
            raise Http404("No such page.")
        name = _refused_parameter(request)
        if name is not None:
            if api:
                # The name is echoed without the refused characters: the answer is JSON text too.
                shown = _REFUSED.sub("\ufffd", name)[:50]
                return JsonResponse(
                    error_body("invalid", f"{shown}: {REFUSED_MESSAGE}", {shown: [REFUSED_MESSAGE]}), status=400
                )
            raise BadRequest(REFUSED_MESSAGE)
        return self.get_response(request)
