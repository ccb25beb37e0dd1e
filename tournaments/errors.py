"""Errors that services raise for the caller to show to a user."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """A request that cannot be carried out, with a stable code and a readable message.

    The API turns it into ``{"error": {"code", "message", "fields"}}``.
    """

    status_code = 400

    def __init__(self, message: str, *, code: str = "invalid", fields: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.fields = fields or {}


class NotFoundError(ServiceError):
    status_code = 404

    def __init__(self, message: str, *, code: str = "not_found", fields: dict[str, Any] | None = None) -> None:
        super().__init__(message, code=code, fields=fields)


class ForbiddenError(ServiceError):
    status_code = 403

    def __init__(self, message: str, *, code: str = "permission_denied", fields: dict[str, Any] | None = None) -> None:
        super().__init__(message, code=code, fields=fields)


class ConflictError(ServiceError):
    status_code = 409

    def __init__(self, message: str, *, code: str = "conflict", fields: dict[str, Any] | None = None) -> None:
        super().__init__(message, code=code, fields=fields)


class LimitError(ServiceError):
    """A user is over one of the service's limits for now (too much queued, too many made): a 429."""

    status_code = 429

    def __init__(self, message: str, *, code: str = "limit", fields: dict[str, Any] | None = None) -> None:
        super().__init__(message, code=code, fields=fields)
