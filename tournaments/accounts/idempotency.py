"""``Idempotency-Key``: a POST that creates something, sent again with the same key, gets the first answer.

A client that lost the answer (a timeout, a dropped connection, a 502 from a
proxy) cannot know whether its request was done; retrying it blindly would
make a second tournament.  With a key, the first successful answer is kept
per user and key for ``ARBITER_IDEMPOTENCY_TTL_H`` hours and a retry gets it
back (with ``Idempotent-Replayed: true``) without doing anything again.  The
key's row is written in the same transaction as the work, so two copies of
one request sent at once wait for each other and only one does the work.  A
failed request (4xx, 5xx) keeps nothing: it may be retried with the same key.
The same key on another path is refused (422).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import IntegrityError, transaction
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder

from tournaments.accounts.models import IdempotentRequest
from tournaments.api.errors import error_body
from tournaments.dbclock import db_now

HEADER = "Idempotency-Key"
MAX_KEY = 200
View = TypeVar("View", bound=Callable[..., Response])


def _replay(row: IdempotentRequest, path: str) -> Response:
    if row.path != path:
        message = f"This {HEADER} was used for another request."
        return Response(error_body("idempotency_key_reused", message), status=status.HTTP_422_UNPROCESSABLE_ENTITY)
    return Response(row.body, status=row.status, headers={"Idempotent-Replayed": "true"})


def idempotent(view: View) -> View:
    """Make a creating POST of an API view honour ``Idempotency-Key`` (see the module docstring)."""

    @functools.wraps(view)
    def wrapper(self: Any, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = request.headers.get(HEADER, "").strip()
        user = request.user
        if not key or not user or not user.is_authenticated:
            return view(self, request, *args, **kwargs)
        if len(key) > MAX_KEY:
            message = f"{HEADER} is longer than {MAX_KEY} characters."
            return Response(error_body("invalid", message), status=status.HTTP_400_BAD_REQUEST)
        expired = db_now() - timedelta(hours=settings.ARBITER_IDEMPOTENCY_TTL_H)
        IdempotentRequest.objects.filter(user=user, created__lt=expired).delete()
        with transaction.atomic():
            try:
                with transaction.atomic():  # waits for a copy of this request that holds the key
                    row = IdempotentRequest.objects.create(user=user, key=key, path=request.path, status=0)
            except IntegrityError:
                # The same request got there first and has committed: its answer stands.
                return _replay(IdempotentRequest.objects.get(user=user, key=key), request.path)
            response = view(self, request, *args, **kwargs)
            if not 200 <= response.status_code < 300:
                transaction.set_rollback(True)  # nothing was done: a retry may do it
                return response
            # As the client saw it (DRF's encoder: its dates and decimals), so a replay is the same text.
            row.status, row.body = response.status_code, json.loads(json.dumps(response.data, cls=JSONEncoder))
            row.save(update_fields=["status", "body"])
            return response

    return wrapper  # type: ignore[return-value]
