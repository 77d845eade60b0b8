"""What changed around a node between two instants (`GET /api/v1/lineage/diff`, `GET /api/v1/column-lineage/diff`)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.permissions import CanRead
from lineage_app.api_support import FieldRenameSerializer, InstantField, ResponseSerializer, query_params
from lineage_app.explorer.apis.lineage_graphs import (
    ColumnLineageGraphApi,
    DatasetEdgeSerializer,
    FieldEdgeSerializer,
    LineageGraphApi,
)
from lineage_app.explorer.apis.shared import NodeInput, response_read, responses_documented
from lineage_app.explorer.selectors.lineage import DIRECTIONS
from lineage_app.explorer.selectors.lineage_diff import ADDED, REMOVED, UNCHANGED, column_lineage_diff, lineage_diff
from lineage_app.graph.model import LEVELS

CHANGES = [ADDED, REMOVED, UNCHANGED]
_CHANGE_HELP = "`added`: in the graph at `to`, not at `from`; `removed`: the reverse; `unchanged`: in both"


class DiffInput(NodeInput):
    depth = serializers.IntegerField(min_value=0, max_value=settings.LINEAGE_MAX_DEPTH, default=2)
    direction = serializers.ChoiceField(choices=sorted(DIRECTIONS), default="both")
    # `from` after `to` is a diff backwards in time: what `to` lacks shows as `added`, and so on.
    vars()["from"] = InstantField(help_text="ISO 8601: the graph compared from (usually the earlier instant)")
    to = InstantField(help_text="ISO 8601: the graph compared to (usually the later instant)")


def _diff_arguments(data: dict[str, Any]) -> dict[str, Any]:
    """What both diffs take of a validated `DiffInput`, as their selectors name it."""
    return {
        "node_id": data["nodeId"],
        "depth": data["depth"],
        "direction": data["direction"],
        "since": data["from"],
        "until": data["to"],
    }


class ChangesSerializer(ResponseSerializer):
    class PairSerializer(ResponseSerializer):
        class Meta:
            ref_name = "LineageDiffEdgePair"

        origin = serializers.CharField()
        destination = serializers.CharField()

    addedNodes = serializers.ListField(child=serializers.CharField())
    removedNodes = serializers.ListField(child=serializers.CharField())
    addedEdges = PairSerializer(many=True)
    removedEdges = PairSerializer(many=True)


class SchemaChangeSerializer(ResponseSerializer):
    class FieldChangeSerializer(ResponseSerializer):
        name = serializers.CharField()
        fromType = serializers.CharField(allow_null=True)
        toType = serializers.CharField(allow_null=True)

    datasetId = serializers.CharField()
    fromVersion = serializers.CharField(help_text="the newest schema version first seen by `from`")
    toVersion = serializers.CharField(help_text="the newest schema version first seen by `to`")
    addedFields = serializers.ListField(child=serializers.CharField())
    removedFields = serializers.ListField(child=serializers.CharField())
    changedFields = FieldChangeSerializer(many=True)
    renamedFields = FieldRenameSerializer(many=True, help_text="removed and added fields read as renames")


class _DiffBody(ResponseSerializer):
    nodeId = serializers.CharField()
    depth = serializers.IntegerField()
    direction = serializers.ChoiceField(choices=sorted(DIRECTIONS))
    vars()["from"] = serializers.CharField()
    to = serializers.CharField()
    truncated = serializers.BooleanField(help_text="the node budget cut either graph short")
    changes = ChangesSerializer()
    schemaChanges = SchemaChangeSerializer(many=True, help_text="datasets whose schema differs between the two")


class DiffEdgeSerializer(DatasetEdgeSerializer):
    class Meta:
        ref_name = "LineageDiffEdge"

    change = serializers.ChoiceField(choices=CHANGES, help_text=_CHANGE_HELP)


class FieldDiffEdgeSerializer(FieldEdgeSerializer):
    class Meta:
        ref_name = "ColumnLineageDiffEdge"

    change = serializers.ChoiceField(choices=CHANGES, help_text=_CHANGE_HELP)


class LineageDiffApi(APIView):
    """`GET /api/v1/lineage/diff?nodeId=…&depth=…&from=T1&to=T2`: the datasets and jobs around a node at two
    instants as one graph, each node and edge `added`, `removed` or `unchanged`, and the schema changes."""

    permission_classes = [CanRead]

    class InputSerializer(DiffInput):
        level = serializers.ChoiceField(choices=LEVELS, default="application")

    class OutputSerializer(_DiffBody):
        class Meta:
            ref_name = "LineageDiff"

        class NodeSerializer(LineageGraphApi.OutputSerializer.NodeSerializer):
            class Meta:
                ref_name = "LineageDiffNode"

            change = serializers.ChoiceField(choices=CHANGES, help_text=_CHANGE_HELP)
            inEdges = DiffEdgeSerializer(many=True)
            outEdges = DiffEdgeSerializer(many=True)

        graph = NodeSerializer(many=True)
        level = serializers.ChoiceField(choices=LEVELS)

    @extend_schema(
        operation_id="lineage_diff", parameters=[InputSerializer], responses=responses_documented(OutputSerializer)
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return response_read(
            serializer=self.OutputSerializer,
            read=lambda: lineage_diff(**_diff_arguments(data), level=data["level"]),
        )


class ColumnLineageDiffApi(APIView):
    """`GET /api/v1/column-lineage/diff?nodeId=datasetField:…&from=T1&to=T2`: column lineage at two instants, merged."""

    permission_classes = [CanRead]

    class InputSerializer(DiffInput):
        pass

    class OutputSerializer(_DiffBody):
        class Meta:
            ref_name = "ColumnLineageDiff"

        class FieldNodeSerializer(ColumnLineageGraphApi.OutputSerializer.FieldNodeSerializer):
            class Meta:
                ref_name = "ColumnLineageDiffNode"

            change = serializers.ChoiceField(choices=CHANGES, help_text=_CHANGE_HELP)
            inEdges = FieldDiffEdgeSerializer(many=True)
            outEdges = FieldDiffEdgeSerializer(many=True)

        graph = FieldNodeSerializer(many=True)

    @extend_schema(
        operation_id="column_lineage_diff",
        parameters=[InputSerializer],
        responses=responses_documented(OutputSerializer),
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return response_read(
            serializer=self.OutputSerializer,
            read=lambda: column_lineage_diff(**_diff_arguments(data)),
        )
