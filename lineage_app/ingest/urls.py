"""Ingestion routes (the OpenLineage HTTP transport's endpoint and its batch variant)."""

from __future__ import annotations

from django.urls import path

from lineage_app.ingest.apis import FacetWarningListApi, LineageBatchCreateApi, LineageEventCreateApi
from lineage_app.lineage.apis import LineageGraphApi, LineageRouteSchema
from lineage_app.routing import by_method

lineage_route = by_method(get=LineageGraphApi.as_view(), post=LineageEventCreateApi.as_view())
# The schema generator reads a URL's view class; a by-method view has none, so name one that documents both.
lineage_route.cls = LineageRouteSchema  # type: ignore[attr-defined]
lineage_route.initkwargs = {}  # type: ignore[attr-defined]

urlpatterns = [
    path("lineage", lineage_route, name="lineage"),
    path("lineage/batch", LineageBatchCreateApi.as_view(), name="lineage-ingest-batch"),
    path("facet-warnings", FacetWarningListApi.as_view(), name="facet-warning-list"),
]
