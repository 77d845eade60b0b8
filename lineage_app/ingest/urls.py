"""Ingestion routes (the OpenLineage HTTP transport's endpoint and its batch variant)."""

from __future__ import annotations

from django.urls import path

from lineage_app.ingest.apis import LineageBatchCreateApi, LineageEventCreateApi
from lineage_app.lineage.apis import LineageGraphApi
from lineage_app.routing import by_method

urlpatterns = [
    path(
        "lineage",
        by_method(get=LineageGraphApi.as_view(), post=LineageEventCreateApi.as_view()),
        name="lineage",
    ),
    path("lineage/batch", LineageBatchCreateApi.as_view(), name="lineage-ingest-batch"),
]
