"""GET /api/: where to start: the docs, the schema and every resource, as links."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import permissions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

# Resources listed at the root: (key, route name).  Routes with ids are given as templates.
_LISTS = [
    ("games", "api-games"),
    ("bots", "api-bots"),
    ("tournaments", "api-tournaments"),
    ("matches", "api-matches"),
    ("ratings", "api-ratings"),
    ("challenges", "api-challenges"),
    ("schedules", "api-schedules"),
    ("sign_up", "api-users"),
    ("token", "api-token"),
    ("me", "api-me"),
]
_TEMPLATES = {
    "game": "/api/games/{game}/",
    "leaderboard": "/api/games/{game}/leaderboard/",
    "bot": "/api/bots/{id}/",
    "bot_versions": "/api/bots/{id}/versions/",
    "version_tests": "/api/bots/{id}/version-tests/",
    "tournament": "/api/tournaments/{id}/",
    "standings": "/api/tournaments/{id}/standings/",
    "match": "/api/matches/{id}/",
}


class ApiRootApi(APIView):
    """The API's entry point: links to its documentation and resources."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(
        summary="The API root: links to the docs, the schema and each resource", responses=OpenApiTypes.OBJECT
    )
    def get(self, request: Request) -> Response:
        return Response(
            {
                "docs": reverse("api-docs", request=request),
                "redoc": reverse("api-redoc", request=request),
                "schema": reverse("api-schema", request=request),
                "resources": {key: reverse(name, request=request) for key, name in _LISTS},
                "templates": {key: request.build_absolute_uri(path) for key, path in _TEMPLATES.items()},
            }
        )
