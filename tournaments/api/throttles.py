"""Per-user rate limits on expensive requests, with rates read from settings.

DRF's ScopedRateThrottle reads its rates once at import; this one reads
``settings.ARBITER_THROTTLE_RATES`` on every request, so a deployment (or a
test with ``override_settings``) can change them.
"""

from __future__ import annotations

from django.conf import settings
from rest_framework.throttling import ScopedRateThrottle


class ArbiterScopedThrottle(ScopedRateThrottle):
    """Counts requests per user (per address for anonymous ones) in the view's ``throttle_scope``."""

    def get_rate(self) -> str | None:
        return settings.ARBITER_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request, view) -> bool:  # type: ignore[no-untyped-def]
        # Only writes are expensive: reading a list never counts against the budget.
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return True
        return super().allow_request(request, view)
