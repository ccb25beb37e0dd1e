"""OpenAPI schema support: the error shape, the error responses every operation can give.

drf-spectacular builds the schema from the views' ``extend_schema`` notes; the
hook below adds the errors that any operation may answer with (a bad token,
an unknown id, a server fault), so that the published schema lists every
status the API really returns.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable machine-readable code, e.g. `not_found`, `invalid`, `throttled`.")
    message = serializers.CharField(help_text="A sentence for people.")
    # The error shape's key is "fields", also the name of a Serializer attribute: this one is the shape's.
    fields = serializers.DictField(  # type: ignore[assignment]
        child=serializers.JSONField(),
        help_text="Per-field problems (field name to a list of messages); empty when the error is not about input.",
    )


class ErrorSerializer(serializers.Serializer):
    """Every 4xx and 5xx answer of the API has this body."""

    error = ErrorDetailSerializer()


ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Every 4xx and 5xx answer of the API has this body.",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "fields": {"type": "object", "additionalProperties": {}},
            },
            "required": ["code", "message", "fields"],
        }
    },
    "required": ["error"],
}


def _example(code: str, message: str, fields: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


# One example body per generic error status, shown in the docs next to the shape.
ERROR_EXAMPLES: dict[str, dict[str, Any]] = {
    "400": _example("invalid", "games: Ensure this value is less than or equal to 100.", {"games": ["..."]}),
    "401": _example("authentication_failed", "Invalid token."),
    "403": _example("permission_denied", "Only the bot's owner can change it."),
    "404": _example("not_found", "No such bot."),
    "413": _example("request_too_large", "The request body is larger than 2621440 bytes (not counting files)."),
    "500": _example("server_error", "Internal server error."),
}

_GENERIC: dict[str, str] = {
    "400": "Invalid input (body, query parameter or file); `fields` says which.",
    "401": "The credentials are missing or wrong (an unknown or revoked token).",
    "403": "Authenticated, but not allowed (not the owner, or a CSRF failure with session auth).",
    "404": "No such object, or one you may not see (private bots are invisible to others).",
    "413": "The request body (not counting uploaded files) is larger than the server reads.",
    "500": "A fault of the service; the body still has the error shape.",
}


def error(description: str) -> OpenApiResponse:
    """An error response for ``extend_schema(responses=...)``."""
    return OpenApiResponse(ErrorSerializer, description=description)


PATH_PARAMETERS: dict[str, str] = {
    "bot_id": "The bot's id.",
    "number": "A version's number within its bot (1 for the first upload, then 2, ...).",
    "game_id": "The game's id, e.g. `gamesup` (see GET /api/games/).",
    "tournament_id": "The tournament's id.",
    "match_id": "The match's id.",
    "challenge_id": "The challenge's id.",
    "schedule_id": "The schedule's id.",
    "test_id": "The version test's id.",
}


def add_error_responses(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Postprocessing hook: every operation documents the error statuses it can give.

    It also describes the path parameters, which the views name but do not explain.
    """
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["Error"] = ERROR_SCHEMA
    ref = {"$ref": "#/components/schemas/Error"}
    for path, item in result.get("paths", {}).items():
        for method, operation in item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "path" and parameter["name"] in PATH_PARAMETERS:
                    parameter.setdefault("description", PATH_PARAMETERS[parameter["name"]])
            codes = ["400", "401", "404", "500"]
            if method != "get" or path.endswith("/me/"):
                codes.append("403")
            if method in ("post", "put", "patch"):
                codes.append("413")
            responses = operation.setdefault("responses", {})
            for code in codes:
                media = {"schema": ref, "example": ERROR_EXAMPLES[code]}
                responses.setdefault(code, {"description": _GENERIC[code], "content": {"application/json": media}})
            for code, response in responses.items():
                # Error answers documented by a view refer to the one shape too.
                if code.startswith(("4", "5")) and "content" not in response:
                    response["content"] = {"application/json": {"schema": ref}}
    return result


class ApiAutoSchema(AutoSchema):
    """Operation ids read as ``bots_versions_retire_create``; tags are the first path segment."""

    def get_tags(self) -> list[str]:
        parts = [p for p in self.path.split("/") if p and p != "api"]
        return [parts[0]] if parts else ["api"]
