"""What the explorer's endpoints share: node and list-filter parameters, the documented answers, and the 404s."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rest_framework import serializers
from rest_framework.response import Response

from lineage_app.api_errors import error_response
from lineage_app.api_support import ERRORS, PageInput, QueryInput, ResponseSerializer, response_of
from lineage_app.explorer.selectors.datasets import VersionNotFound
from lineage_app.explorer.selectors.near_miss import NodeParameterNotFound
from lineage_app.graph.node_ids import NodeNotFound
from lineage_protocol import VerificationStatus

# An event's (or the worst of a run's events') signature status.
VERIFICATIONS = [status.value for status in VerificationStatus]


def responses_documented(ok: Any) -> dict[int, Any]:
    """An endpoint's documented answers: `ok` and the shared errors."""
    return {200: ok, **ERRORS}


def response_read(
    *,
    serializer: type[ResponseSerializer],
    read: Callable[[], Mapping[str, Any]],
    node_parameter: str | None = "nodeId",
) -> Response:
    """Run a selector and shape its answer by `serializer`; an unknown node or version becomes a 404
    naming the parameter (`node_parameter`: None when the node is named by the URL's path)."""
    try:
        return response_of(serializer, read())
    except VersionNotFound as exc:
        return error_response("not_found", str(exc), path=exc.parameter, http_status=404)
    except NodeParameterNotFound as exc:
        return error_response("not_found", str(exc), path=exc.parameter, http_status=404)
    except NodeNotFound as exc:
        return error_response("not_found", str(exc), path=node_parameter, http_status=404)


class NodeInput(QueryInput):
    nodeId = serializers.CharField(help_text="e.g. `dataset:<namespace>:<name>`, URL-encoded")


class ListFilterInput(PageInput):
    namespace = serializers.CharField(required=False, default=None)
    q = serializers.CharField(required=False, default=None, help_text="case-insensitive substring of the name")
