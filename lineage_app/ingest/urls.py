"""Ingestion routes: the batch endpoint and facet warnings (`POST /api/v1/lineage` itself is in `lineage_endpoint`)."""

from __future__ import annotations

from django.urls import path

from lineage_app.ingest.apis import FacetWarningListApi, LineageBatchCreateApi

urlpatterns = [
    path("lineage/batch", LineageBatchCreateApi.as_view(), name="lineage-ingest-batch"),
    path("facet-warnings", FacetWarningListApi.as_view(), name="facet-warning-list"),
]
