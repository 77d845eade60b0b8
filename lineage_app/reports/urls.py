"""Impact analysis, impact reports and root-cause routes."""

from __future__ import annotations

from django.urls import path

from lineage_app.reports import apis

urlpatterns = [
    path("impact", apis.ImpactApi.as_view(), name="impact"),
    path("impact/report", apis.ImpactReportApi.as_view(), name="impact-report"),
    path("root-cause", apis.RootCauseApi.as_view(), name="root-cause"),
]
