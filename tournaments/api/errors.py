"""One JSON error shape everywhere: ``{"error": {"code", "message", "fields"}}``."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from django.views.csrf import csrf_failure as django_csrf_failure
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from tournaments.errors import ServiceError

logger = logging.getLogger(__name__)


def error_body(code: str, message: str, fields: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


def _first_message(detail: Any) -> str:
    if isinstance(detail, dict):
        for key, value in detail.items():
            text = _first_message(value)
            return text if key in ("non_field_errors", "detail") else f"{key}: {text}"
        return "Invalid input."
    if isinstance(detail, list):
        return _first_message(detail[0]) if detail else "Invalid input."
    return str(detail)


def error_fields(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """Field errors as ``{"field": ["message", ...]}``, always strings.

    Nested errors (a list's items, a nested object's keys) get dotted names such as
    ``participants.0`` or ``options.teams``, never a Python repr of the structure.
    """
    out: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            for field, messages in error_fields(value, name).items():
                out.setdefault(field, []).extend(messages)
    elif isinstance(detail, list | tuple):
        for index, value in enumerate(detail):
            if isinstance(value, dict | list | tuple):
                # A list of per-item errors: empty entries are items without errors.
                for field, messages in error_fields(value, f"{prefix}.{index}" if prefix else str(index)).items():
                    out.setdefault(field, []).extend(messages)
            elif value is not None and str(value):
                out.setdefault(prefix or "non_field_errors", []).append(str(value))
    elif detail is not None:
        out.setdefault(prefix or "non_field_errors", []).append(str(detail))
    return out


def _fields(detail: Any) -> dict[str, list[str]]:
    return error_fields(detail) if isinstance(detail, dict) else {}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, reshaped; service errors map to their status; anything else is a JSON 500."""
    if isinstance(exc, ServiceError):
        return Response(error_body(exc.code, exc.message, error_fields(exc.fields)), status=exc.status_code)
    if isinstance(exc, RequestDataTooBig):
        # Django refuses to read a body past DATA_UPLOAD_MAX_MEMORY_SIZE (files do not count).
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        message = f"The request body is larger than {limit} bytes (not counting uploaded files)."
        return Response(error_body("request_too_large", message), status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    if isinstance(exc, TooManyFieldsSent | TooManyFilesSent):
        return Response(error_body("invalid", str(exc) or "Too many fields or files."), status=400)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(exc.message_dict if hasattr(exc, "error_dict") else exc.messages)
    response = drf_exception_handler(exc, context)
    if response is None:
        logger.exception("unhandled error in the API", exc_info=exc)
        return Response(error_body("server_error", "Internal server error."), status=500)
    if isinstance(exc, exceptions.ValidationError):
        body = error_body("invalid", _first_message(exc.detail), _fields(exc.detail))
    else:
        code = exc.get_codes() if isinstance(exc, exceptions.APIException) else "error"
        code = code if isinstance(code, str) else "error"
        body = error_body(code, _first_message(getattr(exc, "detail", str(exc))))
    response.data = body
    return response


def not_found_json(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    """Unknown URLs under /api/ answer in the same shape."""
    return JsonResponse(error_body("not_found", "Not found."), status=status.HTTP_404_NOT_FOUND)


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's 500 handler: JSON in the error shape under /api/, Django's page elsewhere.

    Faults inside API views are already answered by ``exception_handler``;
    this covers the rest (middleware, URL resolution).
    """
    if request.path.startswith("/api/"):
        return JsonResponse(error_body("server_error", "Internal server error."), status=500)
    return defaults.server_error(request)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: the error shape under /api/ (e.g. a session cookie without its CSRF token)."""
    if request.path.startswith("/api/"):
        body = error_body("permission_denied", f"CSRF check failed: {reason or 'no valid token'}.")
        return JsonResponse(body, status=status.HTTP_403_FORBIDDEN)
    return django_csrf_failure(request, reason=reason)
