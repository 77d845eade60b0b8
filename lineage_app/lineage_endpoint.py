"""`/api/v1/lineage`: one URL, two operations owned by two apps (the explorer's GET, ingest's POST).

OpenLineage producers post events to `/api/v1/lineage` and Marquez-style clients read lineage from
the same path, so neither app owns the URL: this module, beside the URL map, composes the two API
classes into one view and takes each method's permissions from the class that serves it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework.views import APIView

from lineage_app.explorer.apis.lineage_graphs import LineageGraphApi
from lineage_app.ingest.apis import LineageEventCreateApi

if TYPE_CHECKING:  # the type DRF's stubs give a permission instance; not in DRF at run time
    from rest_framework.permissions import _SupportsHasPermission


class LineageApi(LineageGraphApi, LineageEventCreateApi):
    """`GET` reads a lineage graph (`LineageGraphApi.get`); `POST` stores an event (`LineageEventCreateApi.post`)."""

    served_by: dict[str, type[APIView]] = {"GET": LineageGraphApi, "POST": LineageEventCreateApi}

    def get_permissions(self) -> list[_SupportsHasPermission]:
        served_by = self.served_by.get(self.request.method or "", LineageGraphApi)
        return [permission() for permission in served_by.permission_classes]
