"""Lineage graph endpoints: datasets and jobs around a node (`GET /api/v1/lineage`), a hub's neighbours a page at a
time, and column lineage."""

from __future__ import annotations

import base64
from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.permissions import CanRead
from lineage_app.api_support import (
    QUALITY_STATUS_HELP,
    RUN_STATES,
    ColumnEdgeSerializer,
    EdgeValiditySerializer,
    MomentInput,
    QualityStatusField,
    ResponseSerializer,
    moment_of,
    query_params,
)
from lineage_app.explorer.apis.shared import NodeInput, response_read, responses_documented
from lineage_app.explorer.selectors.lineage import DIRECTIONS, column_lineage_for_node, lineage_for_node
from lineage_app.explorer.selectors.neighbours import neighbours_for_node
from lineage_app.graph.model import FIELD_NODE_TYPES, LEVELS, LINEAGE_NODE_TYPES


class GraphInput(NodeInput, MomentInput):
    depth = serializers.IntegerField(min_value=0, max_value=settings.LINEAGE_MAX_DEPTH, default=2)
    direction = serializers.ChoiceField(choices=sorted(DIRECTIONS), default="both")


class EdgeSerializer(EdgeValiditySerializer):
    origin = serializers.CharField()
    destination = serializers.CharField()


class DatasetEdgeSerializer(EdgeSerializer):
    """A dataset-lineage edge (dataset to job, job to dataset); a job -> job one is a declared dependency or goes
    through temporary datasets."""

    inferred = serializers.BooleanField(
        help_text="an input inferred from column lineage: the job's column lineage names the dataset as a source, "
        "but no event of its runs listed it as an input (docs/dbt.md); left out with `includeInferred=false`"
    )
    declared = serializers.BooleanField(
        required=False,
        help_text="set (true) on a job -> job edge a run declared (OpenLineage `jobDependencies` run facet)",
    )
    via = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="a job -> job edge standing for the temporary dataset(s) it names, left out of the answer "
        "unless `includeTemporary`",
    )
    lastSubset = serializers.CharField(
        required=False,
        help_text="job -> dataset: the part of the dataset the job last wrote, when its writes name one (`subset` "
        "facet: a partition such as `date=2026-11-24`); such runs wrote that part, not the whole dataset",
    )
    lastSubsetAt = serializers.CharField(required=False, help_text="when the job last wrote `lastSubset`")


class FieldEdgeSerializer(EdgeSerializer, ColumnEdgeSerializer):
    """A column-lineage edge between two fields, as the graph's nodes list it."""


class LineageGraphApi(APIView):
    """`GET /api/v1/lineage?nodeId=…&depth=…&direction=…[&at=…][&includeStale=true][&includeInferred=false]`:
    datasets and jobs around a node."""

    permission_classes = [CanRead]

    class InputSerializer(GraphInput):
        level = serializers.ChoiceField(
            choices=LEVELS,
            default="application",
            help_text="`application`: each action job (a job whose runs have a parent run, OpenLineage "
            "ParentRunFacet: a Spark action, an Airflow task) is drawn as its application job; "
            "`action`: action jobs as recorded, each naming its `application`. An application "
            "job as `nodeId` starts from its action jobs at either level.",
        )
        includeTemporary = serializers.BooleanField(
            default=False,
            help_text="draw temporary datasets (OpenLineage `datasetType` subtype TEMPORARY); by default each one "
            "between a job writing it and a job reading it is left out, as a job -> job edge naming it in `via`",
        )

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "LineageGraph"

        class NodeSerializer(ResponseSerializer):
            class Meta:
                ref_name = "LineageGraphNode"

            class NodeDataSerializer(ResponseSerializer):
                class Meta:
                    ref_name = "LineageGraphNodeData"

                # In the order the graph's summaries have them (a dataset's and a job's keys interleave).
                nodeId = serializers.CharField()
                namespace = serializers.CharField()
                name = serializers.CharField()
                currentVersion = serializers.CharField(allow_null=True, required=False, help_text="datasets")
                fieldCount = serializers.IntegerField(allow_null=True, required=False, help_text="datasets")
                jobType = serializers.CharField(allow_null=True, required=False, help_text="jobs")
                firstSeen = serializers.CharField(allow_null=True)
                lastSeen = serializers.CharField(allow_null=True)
                lastRunState = serializers.ChoiceField(
                    choices=RUN_STATES, allow_null=True, required=False, help_text="datasets"
                )
                lastRunTime = serializers.CharField(allow_null=True, required=False, help_text="datasets")
                temporary = serializers.BooleanField(
                    allow_null=True, required=False, help_text="datasets: `datasetType` subtype TEMPORARY"
                )
                latestRunId = serializers.CharField(allow_null=True, required=False, help_text="jobs")
                latestRunState = serializers.ChoiceField(
                    choices=RUN_STATES, allow_null=True, required=False, help_text="jobs"
                )
                latestRunTime = serializers.CharField(allow_null=True, required=False, help_text="jobs")
                quality = QualityStatusField(
                    required=False, help_text=f"datasets: their data-quality status now. {QUALITY_STATUS_HELP}"
                )
                actions = serializers.ListField(
                    child=serializers.CharField(),
                    required=False,
                    help_text="`level=application`, application jobs only: the ids of its action jobs that "
                    "this answer reached (rolled up into this node), sorted",
                )
                level = serializers.ChoiceField(
                    choices=["application"],
                    required=False,
                    help_text="set on application job nodes at `level=application`",
                )
                application = serializers.CharField(
                    required=False, help_text="`level=action`, action jobs only: the id of its application job"
                )

            id = serializers.CharField()
            type = serializers.ChoiceField(choices=LINEAGE_NODE_TYPES)
            data = NodeDataSerializer()  # type: ignore[assignment]  # the API's `data` shadows DRF's
            inEdges = DatasetEdgeSerializer(many=True)
            outEdges = DatasetEdgeSerializer(many=True)

        nodeId = serializers.CharField()
        depth = serializers.IntegerField()
        direction = serializers.ChoiceField(choices=sorted(DIRECTIONS))

        class ClusterSerializer(ResponseSerializer):
            class Meta:
                ref_name = "LineageCluster"

            id = serializers.CharField(help_text="`neighbours:<direction>:<namespace or *>:<nodeId>`")
            nodeId = serializers.CharField(
                help_text="the hub: the node whose neighbours these are (`GET /api/v1/lineage/neighbours`' `nodeId`)"
            )
            drawnOn = serializers.CharField(
                help_text="the node of `graph` the hub is drawn as: the hub, or at `level=application` an action "
                "job hub's application"
            )
            direction = serializers.ChoiceField(choices=["downstream", "upstream"])
            type = serializers.ChoiceField(choices=LINEAGE_NODE_TYPES, help_text="what its members are")
            namespace = serializers.CharField(
                allow_null=True, help_text="its members' namespace; null: every namespace (too many to count apart)"
            )
            count = serializers.IntegerField(help_text="its members: the hub's neighbours in that namespace")
            failing = serializers.IntegerField(help_text="members whose latest run failed or was aborted")

        truncated = serializers.BooleanField(
            help_text="the node budget (`LINEAGE_MAX_NODES`, clusters included) cut the graph short"
        )
        graph = NodeSerializer(many=True)
        clusters = ClusterSerializer(
            many=True,
            help_text="a node with more than `LINEAGE_CLUSTER_THRESHOLD` neighbours in one hop is a hub: they are "
            "not in `graph` (nor walked through) but counted here, by namespace; "
            "`GET /api/v1/lineage/neighbours` lists them",
        )
        level = serializers.ChoiceField(choices=LEVELS)

    @extend_schema(
        operation_id="lineage_graph", parameters=[InputSerializer], responses=responses_documented(OutputSerializer)
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return response_read(
            serializer=self.OutputSerializer,
            read=lambda: lineage_for_node(
                node_id=data["nodeId"],
                depth=data["depth"],
                direction=data["direction"],
                moment=moment_of(data),
                level=data["level"],
                include_temporary=data["includeTemporary"],
            ),
        )


# Padded URL-safe base64, as `neighbour_cursor` writes it: whatever matches decodes.
NEIGHBOUR_CURSOR_PATTERN = r"^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}==|[A-Za-z0-9_-]{3}=)?$"


class NeighbourCursorField(serializers.RegexField):
    """A `next` cursor of `GET /api/v1/lineage/neighbours` (the last member's key, URL-safe base64), as that key.
    Any string of the documented pattern is a place to page from (keyset paging resumes after it, whatever it
    decodes to); anything else is refused."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            NEIGHBOUR_CURSOR_PATTERN,
            error_messages={"invalid": "not a cursor: give back the `next` of the previous page"},
            **kwargs,
        )

    def run_validation(self, data: Any = serializers.empty) -> str | None:
        text = super().run_validation(data)  # the pattern checks the cursor as sent, before it is decoded
        if text is None:
            return None
        return base64.urlsafe_b64decode(text.encode("ascii")).decode("utf-8", errors="replace")


def neighbour_cursor(key: str | None) -> str | None:
    """The cursor `NeighbourCursorField` reads back as `key`."""
    return None if key is None else base64.urlsafe_b64encode(key.encode("utf-8")).decode("ascii")


class LineageNeighbourListApi(APIView):
    """`GET /api/v1/lineage/neighbours?nodeId=…&direction=…[&namespace=…][&q=…][&cursor=…][&limit=…]`: a node's
    neighbours one hop away, a page at a time by key: the members of a lineage answer's `clusters`."""

    permission_classes = [CanRead]

    class InputSerializer(NodeInput, MomentInput):
        direction = serializers.ChoiceField(choices=["downstream", "upstream"])
        namespace = serializers.CharField(
            required=False, default=None, help_text="only neighbours in this namespace (a cluster's `namespace`)"
        )
        q = serializers.CharField(required=False, default=None, help_text="case-insensitive substring of the name")
        cursor = NeighbourCursorField(
            required=False, default=None, help_text="the previous page's `next`; left out: the first page"
        )
        limit = serializers.IntegerField(min_value=1, max_value=500, default=100)

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "LineageNeighbours"

        class MemberSerializer(ResponseSerializer):
            class Meta:
                ref_name = "LineageNeighbour"

            id = serializers.CharField()
            type = serializers.ChoiceField(choices=LINEAGE_NODE_TYPES)
            data = LineageGraphApi.OutputSerializer.NodeSerializer.NodeDataSerializer()  # type: ignore[assignment]

        nodeId = serializers.CharField()
        direction = serializers.ChoiceField(choices=["downstream", "upstream"])
        namespace = serializers.CharField(allow_null=True)
        members = MemberSerializer(many=True, help_text="in key order (namespace, then name)")
        next = serializers.CharField(
            allow_null=True, help_text="the cursor of the next page; null: this page is the last"
        )

    @extend_schema(
        operation_id="lineage_neighbours",
        parameters=[InputSerializer],
        responses=responses_documented(OutputSerializer),
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)

        def read() -> dict[str, Any]:
            page = neighbours_for_node(
                node_id=data["nodeId"],
                direction=data["direction"],
                namespace=data["namespace"],
                q=data["q"],
                after=data["cursor"],
                limit=data["limit"],
                moment=moment_of(data),
            )
            return page | {"next": neighbour_cursor(page["next"])}

        return response_read(serializer=self.OutputSerializer, read=read)


class ColumnLineageGraphApi(APIView):
    """`GET /api/v1/column-lineage?nodeId=datasetField:…`: fields deriving from, or derived from, a field."""

    permission_classes = [CanRead]

    class InputSerializer(GraphInput):
        pass

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "ColumnLineageGraph"

        class FieldNodeSerializer(ResponseSerializer):
            class Meta:
                ref_name = "ColumnLineageGraphFieldNode"

            class FieldDataSerializer(ResponseSerializer):
                class Meta:
                    ref_name = "ColumnLineageGraphFieldData"

                namespace = serializers.CharField()
                dataset = serializers.CharField()
                name = serializers.CharField()
                type = serializers.CharField(allow_null=True)

            id = serializers.CharField()
            type = serializers.ChoiceField(choices=FIELD_NODE_TYPES)
            data = FieldDataSerializer()  # type: ignore[assignment]  # the API's `data` shadows DRF's
            inEdges = FieldEdgeSerializer(many=True)
            outEdges = FieldEdgeSerializer(many=True)

        nodeId = serializers.CharField()
        depth = serializers.IntegerField()
        direction = serializers.ChoiceField(choices=sorted(DIRECTIONS))
        truncated = serializers.BooleanField()
        graph = FieldNodeSerializer(many=True)

    @extend_schema(
        operation_id="column_lineage_graph",
        parameters=[InputSerializer],
        responses=responses_documented(OutputSerializer),
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return response_read(
            serializer=self.OutputSerializer,
            read=lambda: column_lineage_for_node(
                node_id=data["nodeId"], depth=data["depth"], direction=data["direction"], moment=moment_of(data)
            ),
        )
