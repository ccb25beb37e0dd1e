"""Top-level routes: the API, the admin, and a JSON 404 for unknown API paths."""

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.urls import include, path, re_path
from django.views.generic import RedirectView

from tournaments.api.errors import not_found_json


def _api_not_found(request: HttpRequest, rest: str = "") -> HttpResponse:
    return not_found_json(request)


urlpatterns = [
    path("api/", include("tournaments.api.urls")),
    re_path(r"^api/(?P<rest>.*)$", _api_not_found),
    path("api-auth/", include("rest_framework.urls")),
    path("admin/", admin.site.urls),
    path("", RedirectView.as_view(url="/games/", permanent=False)),
]

# -- public API: a fault outside the API views still answers /api/ in the error shape --
handler500 = "tournaments.api.errors.server_error"

# -- deployment: health and metrics (tournaments/health.py, tournaments/metrics.py) --
from tournaments.health import healthz  # noqa: E402
from tournaments.metrics import metrics  # noqa: E402

urlpatterns += [path("healthz", healthz, name="healthz"), path("metrics", metrics, name="metrics")]
# -- end deployment --

# -- pages for people (tournaments/web/): leaderboards, tournaments, bots, match replays --
urlpatterns += [path("", include("tournaments.web.urls"))]
# -- end pages --
