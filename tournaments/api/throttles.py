"""Rate limits on expensive or sensitive requests, counted in the Django cache.

Counts are fixed windows kept with the cache's atomic ``add`` and ``incr``, so
every process that shares the cache (Redis in production: ``ARBITER_CACHE_URL``)
shares the counts, and two processes answering at once cannot both slip under a
limit.  Rates are read from ``settings.ARBITER_THROTTLE_RATES`` on every request,
so a deployment (or a test with ``override_settings``) can change them.
"""

from __future__ import annotations

import hashlib
import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

_PERIODS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}


def rate_parse(*, rate: str) -> tuple[int, int]:
    """``"60/hour"`` as (60 requests, 3600 seconds)."""
    count, period = rate.split("/")
    return int(count), _PERIODS[period]


def throttle_hit(*, scope: str, ident: str) -> float | None:
    """Count one request of ``ident`` in ``scope``; the seconds to wait when over the limit, else None.

    A scope without a rate is unlimited.
    """
    rate = settings.ARBITER_THROTTLE_RATES.get(scope)
    if not rate:
        return None
    limit, period = rate_parse(rate=rate)
    now = time.time()
    window = int(now // period)
    # Hashed: an identity may be a username with characters a cache key must not hold.
    digest = hashlib.sha256(ident.encode()).hexdigest()[:32]
    key = f"throttle:{scope}:{digest}:{window}"
    cache.add(key, 0, timeout=period + 1)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr: this request opens a new window
        cache.add(key, 1, timeout=period + 1)
        count = 1
    if count <= limit:
        return None
    return max(1.0, (window + 1) * period - now)


def client_address(request: HttpRequest | Request) -> str:
    """The address a request came from.

    Behind a proxy (``ARBITER_BEHIND_PROXY``) every request comes from the proxy, which appends
    the client's address to X-Forwarded-For; the last entry is the one it added (the ones
    before it came from the client and prove nothing).
    """
    if settings.ARBITER_BEHIND_PROXY:
        forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        if forwarded[-1]:
            return forwarded[-1]
    return request.META.get("REMOTE_ADDR") or "unknown"


class ArbiterScopedThrottle(BaseThrottle):
    """Counts writes per user (per address for anonymous ones) in the view's ``throttle_scope``."""

    def __init__(self) -> None:
        self._wait: float | None = None

    def allow_request(self, request: Request, view: APIView) -> bool:
        # Only writes are expensive: reading a list never counts against the budget.
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return True
        scope = getattr(view, "throttle_scope", "") or ""
        user = request.user
        ident = f"user:{user.pk}" if user and user.is_authenticated else f"ip:{client_address(request)}"
        self._wait = throttle_hit(scope=scope, ident=ident)
        return self._wait is None

    def wait(self) -> float | None:
        return self._wait
