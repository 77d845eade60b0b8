"""Lineage graph endpoints: datasets and jobs around a node (`GET /api/v1/lineage`), and column lineage."""

from __future__ import annotations

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
        truncated = serializers.BooleanField(help_text="the node budget (`LINEAGE_MAX_NODES`) cut the graph short")
        graph = NodeSerializer(many=True)
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
