"""Per-user rate limits on expensive requests, with rates read from settings.

DRF's ScopedRateThrottle reads its rates once at import; this one reads
``settings.ARBITER_THROTTLE_RATES`` on every request, so a deployment (or a
test with ``override_settings``) can change them.
"""

from __future__ import annotations

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView


class ArbiterScopedThrottle(ScopedRateThrottle):
    """Counts requests per user (per address for anonymous ones) in the view's ``throttle_scope``."""

    def get_rate(self) -> str | None:
        return settings.ARBITER_THROTTLE_RATES.get(self.scope or "")

    def allow_request(self, request: Request, view: APIView) -> bool:
        # Only writes are expensive: reading a list never counts against the budget.
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return True
        return super().allow_request(request, view)
