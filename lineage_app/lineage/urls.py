"""Read-API routes (the lineage graph route itself is shared with ingestion, in `ingest.urls`)."""

from __future__ import annotations

from django.urls import path

from lineage_app.lineage.apis import RunDetailApi

urlpatterns = [
    path("jobs/runs/<str:run_id>", RunDetailApi.as_view(), name="run-detail"),
]
