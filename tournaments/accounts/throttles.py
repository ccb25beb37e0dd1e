"""Throttles on credentials: logins, token requests and sign-ups, per address and per username.

Every attempt counts, right or wrong: a password guesser cannot tell a refusal
by the throttle from a wrong password by timing the work behind it.  Counts
live in the shared cache (tournaments.api.throttles), so every web process
enforces one budget.
"""

from __future__ import annotations

import contextlib

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import NoReverseMatch, reverse

from tournaments.accounts.usernames import username_skeleton
from tournaments.api.errors import error_body
from tournaments.api.throttles import client_address, throttle_hit


def credentials_throttle(*, address: str, username: str, signup: bool = False, proven: bool = False) -> float | None:
    """Count one login (or, with ``signup``, sign-up) attempt; the seconds to wait when over a limit.

    The username is counted by its skeleton, so lookalike spellings share one budget.  A
    username over its budget does not lock out everyone: each address still has a small
    allowance of its own for it (``login_user_address``), so a stranger who spends the
    username's budget spends only their own addresses' allowances, never its owner's.
    ``proven``: the request already holds a valid token of this username, so its budget
    does not apply at all (the address's does).
    """
    waits = [throttle_hit(scope="signup_ip" if signup else "login_ip", ident=address)]
    if username and not proven:
        skeleton = username_skeleton(username)
        locked = throttle_hit(scope="login_user", ident=skeleton)
        if locked is not None:
            allowance = throttle_hit(scope="login_user_address", ident=f"{address} {skeleton}")
            # Over both: tries come back when the first of the two windows ends.
            waits.append(None if allowance is None else min(locked, allowance))
    over = [wait for wait in waits if wait is not None]
    return max(over) if over else None


class LoginThrottleMiddleware:
    """The same budgets for the forms that take credentials outside the API: the pages' log-in
    and sign-up, the admin's and the browsable API's log-in."""

    LOGINS = ("web-login", "admin:login", "rest_framework:login")
    SIGNUPS = ("web-signup",)

    def __init__(self, get_response):  # type: ignore[no-untyped-def]
        self.get_response = get_response
        self._paths: dict[str, bool] | None = None

    def _guarded(self) -> dict[str, bool]:
        """Path -> is it a sign-up (else a log-in)."""
        if self._paths is None:
            paths = {}
            for names, signup in ((self.LOGINS, False), (self.SIGNUPS, True)):
                for name in names:
                    with contextlib.suppress(NoReverseMatch):
                        paths[reverse(name)] = signup
            self._paths = paths
        return self._paths

    def __call__(self, request: HttpRequest) -> HttpResponse:
        signup = self._guarded().get(request.path) if request.method == "POST" else None
        if signup is not None:
            username = str(request.POST.get("username", ""))[:150]
            wait = credentials_throttle(address=client_address(request), username=username, signup=signup)
            if wait is not None:
                what = "sign-ups" if signup else "login attempts"
                body = error_body("throttled", f"Too many {what}; try again in {int(wait)} seconds.")
                response = JsonResponse(body, status=429)
                response["Retry-After"] = str(int(wait))
                return response
        return self.get_response(request)
