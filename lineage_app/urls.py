"""Top-level URL map: the API under /api/v1/, health, metrics, the schema, and the admin."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from lineage_app.lineage_endpoint import LineageApi
from lineage_app.metrics_endpoint import metrics
from lineage_app.web.views import api_docs

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", include("lineage_app.health.urls")),
    path("metrics", metrics, name="metrics"),
    path("api/v1/lineage", LineageApi.as_view(), name="lineage"),
    path("api/v1/", include("lineage_app.ingest.urls")),
    path("api/v1/", include("lineage_app.explorer.urls")),
    path("api/v1/", include("lineage_app.ownership.urls")),
    path("api/v1/", include("lineage_app.accounts.urls")),
    path("api/v1/", include("lineage_app.reports.urls")),
    path("api/v1/", include("lineage_app.notify.urls")),
    path("api/v1/", include("lineage_app.alerts.urls")),
    path("api/v1/", include("lineage_app.ledger.urls")),
    path("api/v1/schema", SpectacularAPIView.as_view(), name="openapi-schema"),
    path("api/v1/docs", api_docs, name="api-docs"),
    path("", include("lineage_app.web.urls")),
]
