"""Top-level routes: the API, the admin, health and metrics, and the pages."""

from django.apps import apps
from django.contrib import admin
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.views.generic import RedirectView

from tournaments.api.errors import not_found_json
from tournaments.ops.health import healthz
from tournaments.ops.metrics import metrics


def _api_not_found(request: HttpRequest, rest: str = "") -> HttpResponse:
    return not_found_json(request)


def _admin_moved(request: HttpRequest, model: str, rest: str) -> HttpResponse:
    """Admin pages from before the split into domain apps (``/admin/tournaments/<model>/``) moved with the model."""
    for model_class in apps.get_models():
        if model_class._meta.model_name == model and model_class.__module__.startswith("tournaments."):
            query = f"?{request.META['QUERY_STRING']}" if request.META.get("QUERY_STRING") else ""
            return HttpResponsePermanentRedirect(f"/admin/{model_class._meta.app_label}/{model}/{rest}{query}")
    raise Http404(model)


urlpatterns = [
    path("api/", include("tournaments.api_urls")),
    # [\s\S], not ".": a path with an encoded newline is still under /api/ and answers JSON.
    re_path(r"^api/(?P<rest>[\s\S]*)$", _api_not_found),
    path("api-auth/", include("rest_framework.urls")),
    re_path(r"^admin/tournaments/(?P<model>[a-z]+)/(?P<rest>.*)$", _admin_moved),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics, name="metrics"),
    path("", RedirectView.as_view(url="/games/", permanent=False)),
    # Browsers ask for /favicon.ico whatever the page says; the icon is an SVG among the static files.
    path("favicon.ico", RedirectView.as_view(url=static("web/favicon.svg"), permanent=True)),
    path("", include("tournaments.web.urls")),
]

# A fault outside the API views still answers /api/ in the error shape.
handler500 = "tournaments.api.errors.server_error"
