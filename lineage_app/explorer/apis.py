"""Read endpoints: lineage and column lineage, namespaces, datasets, jobs, runs, failures and search."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.validators import RegexValidator
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.permissions import CanRead
from lineage_app.api_errors import error_response
from lineage_app.api_support import (
    ERRORS,
    MAX_PAGE,
    InstantField,
    PageInput,
    QueryInput,
    page_of,
    query_params,
)
from lineage_app.explorer import selectors
from lineage_app.graph.node_ids import NodeNotFound


def _responses(ok: Any) -> dict[int, Any]:
    return {200: ok, **ERRORS}


def _answer(read: Callable[[], dict[str, Any]], *, node_parameter: str = "nodeId") -> Response:
    """Run a selector; an unknown node or version becomes a 404 naming the parameter."""
    try:
        return Response(read())
    except selectors.VersionNotFound as exc:
        return error_response("not_found", str(exc), path=exc.parameter, http_status=404)
    except NodeNotFound as exc:
        return error_response("not_found", str(exc), path=node_parameter, http_status=404)


class NodeInput(QueryInput):
    nodeId = serializers.CharField(help_text="e.g. `dataset:<namespace>:<name>`, URL-encoded")


class GraphInput(NodeInput):
    depth = serializers.IntegerField(min_value=0, max_value=settings.LINEAGE_MAX_DEPTH, default=2)
    direction = serializers.ChoiceField(choices=sorted(selectors.DIRECTIONS), default="both")
    asOf = InstantField(required=False, default=None, help_text="ISO 8601; edges first seen later are left out")


class EdgeSerializer(serializers.Serializer):
    origin = serializers.CharField()
    destination = serializers.CharField()


class FieldEdgeSerializer(EdgeSerializer):
    job = serializers.CharField(allow_null=True)
    transformation = serializers.CharField(allow_null=True)
    subtype = serializers.CharField(allow_null=True)
    indirect = serializers.BooleanField()


class NameTypeSerializer(serializers.Serializer):
    name = serializers.CharField()
    type = serializers.CharField()


class LineageGraphApi(APIView):
    """`GET /api/v1/lineage?nodeId=…&depth=…&direction=…&asOf=…`: datasets and jobs around a node."""

    permission_classes = [CanRead]

    class InputSerializer(GraphInput):
        level = serializers.ChoiceField(
            choices=selectors.LEVELS,
            default="application",
            help_text="`application`: each action job (a job whose runs have a parent run, OpenLineage "
            "ParentRunFacet: a Spark action, an Airflow task) is drawn as its application job; "
            "`action`: action jobs as recorded, each naming its `application`. An application "
            "job as `nodeId` starts from its action jobs at either level.",
        )

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "LineageGraph"

        class NodeSerializer(serializers.Serializer):
            class Meta:
                ref_name = "LineageGraphNode"

            class NodeDataSerializer(serializers.Serializer):
                class Meta:
                    ref_name = "LineageGraphNodeData"

                nodeId = serializers.CharField()
                namespace = serializers.CharField()
                name = serializers.CharField()
                firstSeen = serializers.CharField(allow_null=True)
                lastSeen = serializers.CharField(allow_null=True)
                currentVersion = serializers.CharField(allow_null=True, required=False, help_text="datasets")
                fieldCount = serializers.IntegerField(allow_null=True, required=False, help_text="datasets")
                lastRunState = serializers.CharField(allow_null=True, required=False, help_text="datasets")
                lastRunTime = serializers.CharField(allow_null=True, required=False, help_text="datasets")
                jobType = serializers.CharField(allow_null=True, required=False, help_text="jobs")
                latestRunId = serializers.CharField(allow_null=True, required=False, help_text="jobs")
                latestRunState = serializers.CharField(allow_null=True, required=False, help_text="jobs")
                latestRunTime = serializers.CharField(allow_null=True, required=False, help_text="jobs")
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
            type = serializers.ChoiceField(choices=["DATASET", "JOB"])
            data = NodeDataSerializer()
            inEdges = EdgeSerializer(many=True)
            outEdges = EdgeSerializer(many=True)

        nodeId = serializers.CharField()
        depth = serializers.IntegerField()
        direction = serializers.CharField()
        level = serializers.ChoiceField(choices=selectors.LEVELS)
        truncated = serializers.BooleanField(help_text="the node budget (`LINEAGE_MAX_NODES`) cut the graph short")
        graph = NodeSerializer(many=True)

    @extend_schema(operation_id="lineage_graph", parameters=[InputSerializer], responses=_responses(OutputSerializer))
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return _answer(
            lambda: selectors.lineage_for_node(
                node_id=data["nodeId"],
                depth=data["depth"],
                direction=data["direction"],
                as_of=data["asOf"],
                level=data["level"],
            )
        )


class ColumnLineageGraphApi(APIView):
    """`GET /api/v1/column-lineage?nodeId=datasetField:…`: fields deriving from, or derived from, a field."""

    permission_classes = [CanRead]

    class InputSerializer(GraphInput):
        pass

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "ColumnLineageGraph"

        class FieldNodeSerializer(serializers.Serializer):
            class Meta:
                ref_name = "ColumnLineageGraphFieldNode"

            class FieldDataSerializer(serializers.Serializer):
                class Meta:
                    ref_name = "ColumnLineageGraphFieldData"

                namespace = serializers.CharField()
                dataset = serializers.CharField()
                name = serializers.CharField()
                type = serializers.CharField(allow_null=True)

            id = serializers.CharField()
            type = serializers.ChoiceField(choices=["DATASET_FIELD"])
            data = FieldDataSerializer()
            inEdges = FieldEdgeSerializer(many=True)
            outEdges = FieldEdgeSerializer(many=True)

        nodeId = serializers.CharField()
        depth = serializers.IntegerField()
        direction = serializers.CharField()
        truncated = serializers.BooleanField()
        graph = FieldNodeSerializer(many=True)

    @extend_schema(
        operation_id="column_lineage_graph", parameters=[InputSerializer], responses=_responses(OutputSerializer)
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return _answer(
            lambda: selectors.column_lineage_for_node(
                node_id=data["nodeId"], depth=data["depth"], direction=data["direction"], as_of=data["asOf"]
            )
        )


class NamespaceListApi(APIView):
    """`GET /api/v1/namespaces`: every namespace with its dataset and job counts, by name."""

    permission_classes = [CanRead]

    class InputSerializer(PageInput):
        pass

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "NamespaceList"

        name = serializers.CharField()
        datasetCount = serializers.IntegerField()
        jobCount = serializers.IntegerField()

    @extend_schema(
        operation_id="namespace_list",
        parameters=[InputSerializer],
        responses=_responses(page_of("NamespacePage", OutputSerializer())),
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return _answer(lambda: selectors.namespace_list(limit=data["limit"], offset=data["offset"]))


class ListFilterInput(PageInput):
    namespace = serializers.CharField(required=False, default=None)
    q = serializers.CharField(required=False, default=None, help_text="case-insensitive substring of the name")


class DatasetListApi(APIView):
    """`GET /api/v1/datasets?namespace=&q=`: datasets by namespace and name."""

    permission_classes = [CanRead]

    class InputSerializer(ListFilterInput):
        pass

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "DatasetList"

        id = serializers.CharField()
        namespace = serializers.CharField()
        name = serializers.CharField()
        fieldCount = serializers.IntegerField()
        currentVersion = serializers.CharField(allow_null=True)
        lastSeen = serializers.CharField(allow_null=True)
        lastRunState = serializers.CharField(allow_null=True)

    @extend_schema(
        operation_id="dataset_list",
        parameters=[InputSerializer],
        responses=_responses(page_of("DatasetPage", OutputSerializer())),
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return _answer(
            lambda: selectors.dataset_list(
                namespace=data["namespace"], q=data["q"], limit=data["limit"], offset=data["offset"]
            )
        )


class RunSummarySerializer(serializers.Serializer):
    runId = serializers.CharField()
    state = serializers.CharField()
    startedAt = serializers.CharField(allow_null=True)
    endedAt = serializers.CharField(allow_null=True)
    durationMs = serializers.IntegerField(allow_null=True)
    errorMessage = serializers.CharField(allow_null=True)
    cause = serializers.CharField(allow_null=True, help_text="a failed / aborted run's root cause, one line")
    classification = serializers.ChoiceField(
        choices=selectors.FAILURE_CLASSIFICATIONS, allow_null=True, help_text="a failed / aborted run's kind of failure"
    )
    verification = serializers.CharField(allow_null=True)


class DatasetDetailApi(APIView):
    """`GET /api/v1/datasets/detail?nodeId=dataset:…`: one dataset, its schema history, owners and runs."""

    permission_classes = [CanRead]

    class InputSerializer(NodeInput):
        pass

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "DatasetDetail"

        class FieldSerializer(serializers.Serializer):
            class Meta:
                ref_name = "DatasetDetailField"

            id = serializers.CharField()
            name = serializers.CharField()
            type = serializers.CharField(allow_null=True)
            current = serializers.BooleanField()

        class VersionSerializer(serializers.Serializer):
            class Meta:
                ref_name = "DatasetDetailVersion"

            version = serializers.CharField()
            firstSeen = serializers.CharField()
            lastSeen = serializers.CharField()
            createdByRun = serializers.CharField(allow_null=True)
            fields = NameTypeSerializer(many=True)

        class OwnerSerializer(serializers.Serializer):
            class Meta:
                ref_name = "DatasetDetailOwner"

            name = serializers.CharField()
            kind = serializers.CharField()
            role = serializers.CharField()
            source = serializers.CharField()

        class LastRunSerializer(serializers.Serializer):
            class Meta:
                ref_name = "DatasetDetailLastRun"

            runId = serializers.CharField()
            job = serializers.CharField()
            state = serializers.CharField()
            startedAt = serializers.CharField(allow_null=True)
            endedAt = serializers.CharField(allow_null=True)

        id = serializers.CharField()
        namespace = serializers.CharField()
        name = serializers.CharField()
        facets = serializers.DictField()
        currentVersion = serializers.CharField(allow_null=True)
        fields = FieldSerializer(many=True)
        versions = VersionSerializer(many=True, help_text="oldest first; each with its fields (name, type)")
        owners = OwnerSerializer(many=True)
        producers = serializers.ListField(child=serializers.CharField())
        consumers = serializers.ListField(child=serializers.CharField())

        class AliasSerializer(serializers.Serializer):
            class Meta:
                ref_name = "DatasetDetailAlias"

            class SourceSerializer(serializers.Serializer):
                class Meta:
                    ref_name = "DatasetDetailAliasSource"

                kind = serializers.ChoiceField(
                    choices=["dataset", "symlink"], help_text="named as a dataset, or as a `symlinks` identifier"
                )
                type = serializers.CharField(allow_null=True, help_text="the symlink identifier's type, e.g. TABLE")
                job = serializers.CharField(allow_null=True)
                producer = serializers.CharField(allow_null=True)
                event = serializers.CharField(help_text="content hash of the earliest event that named it so")
                firstSeen = serializers.CharField()

            namespace = serializers.CharField()
            name = serializers.CharField()
            source = SourceSerializer(help_text="who named the dataset so first")

        lastRuns = LastRunSerializer(many=True, help_text="the runs that wrote the dataset, newest first, at most 10")
        aliases = AliasSerializer(many=True, help_text="other names of this dataset (docs/identity.md)")

    @extend_schema(operation_id="dataset_detail", parameters=[InputSerializer], responses=_responses(OutputSerializer))
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return _answer(lambda: selectors.dataset_detail(node_id=data["nodeId"]))


class DatasetNearMissApi(APIView):
    """`GET /api/v1/datasets/near-miss?a=dataset:…&b=dataset:…`: why two datasets are not connected."""

    permission_classes = [CanRead]

    class InputSerializer(QueryInput):
        a = serializers.CharField(help_text="a dataset id, `dataset:<namespace>:<name>` (an alias resolves)")
        b = serializers.CharField(help_text="another dataset id")

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "DatasetNearMiss"

        class MissSerializer(serializers.Serializer):
            class Meta:
                ref_name = "DatasetNearMissItem"

            kind = serializers.ChoiceField(
                choices=[
                    "same_name_other_namespace",
                    "same_table_name",
                    "alias_seen_elsewhere",
                    "similar_name_one_job_away",
                ]
            )
            message = serializers.CharField()
            via = serializers.ListField(child=serializers.CharField(), help_text="the job and dataset in between")

        a = serializers.CharField(help_text="the canonical id of `a`")
        b = serializers.CharField(help_text="the canonical id of `b`")
        connected = serializers.BooleanField()
        pathLength = serializers.IntegerField(allow_null=True, help_text="edges on the shortest lineage path")
        direction = serializers.CharField(allow_null=True, help_text="`a to b`, `b to a` or `same dataset`")
        nearMisses = MissSerializer(many=True, help_text=f"at most {selectors.NEAR_MISS_LIMIT}, when not connected")

    @extend_schema(
        operation_id="dataset_near_miss", parameters=[InputSerializer], responses=_responses(OutputSerializer)
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        try:
            return Response(selectors.dataset_near_miss(a=data["a"], b=data["b"]))
        except selectors.NodeParameterNotFound as exc:
            return error_response("not_found", str(exc), path=exc.parameter, http_status=404)


class DatasetVersionDiffApi(APIView):
    """`GET /api/v1/datasets/versions/diff?nodeId=&from=&to=`: what changed between two schema versions."""

    permission_classes = [CanRead]

    class InputSerializer(NodeInput):
        to = serializers.CharField(required=False, default=None, help_text="default: the current version")

        def get_fields(self) -> dict[str, serializers.Field]:
            fields = super().get_fields()
            # `from` is a Python keyword, so the field is added by name.
            fields["from"] = serializers.CharField(
                required=False, default=None, help_text="default: the version before `to`"
            )
            return fields

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "DatasetVersionDiff"

        class ChangedSerializer(serializers.Serializer):
            class Meta:
                ref_name = "DatasetVersionDiffChanged"

            name = serializers.CharField()
            fromType = serializers.CharField()
            toType = serializers.CharField()

        to = serializers.CharField()
        added = NameTypeSerializer(many=True)
        removed = NameTypeSerializer(many=True)
        changed = ChangedSerializer(many=True)
        downstream = serializers.ListField(
            child=serializers.CharField(), help_text="dataset ids downstream, depth ≤ LINEAGE_MAX_DEPTH"
        )
        truncated = serializers.BooleanField()

        def get_fields(self) -> dict[str, serializers.Field]:
            fields = super().get_fields()
            fields["from"] = serializers.CharField()
            return fields

    @extend_schema(
        operation_id="dataset_version_diff", parameters=[InputSerializer], responses=_responses(OutputSerializer)
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return _answer(
            lambda: selectors.dataset_version_diff(
                node_id=data["nodeId"], from_version=data["from"], to_version=data["to"]
            )
        )


class JobListApi(APIView):
    """`GET /api/v1/jobs?namespace=&q=`: jobs by namespace and name, with their latest run."""

    permission_classes = [CanRead]

    class InputSerializer(ListFilterInput):
        pass

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "JobList"

        id = serializers.CharField()
        namespace = serializers.CharField()
        name = serializers.CharField()
        jobType = serializers.CharField(allow_null=True)
        latestRunState = serializers.CharField(allow_null=True)
        latestRunTime = serializers.CharField(allow_null=True)

    @extend_schema(
        operation_id="job_list",
        parameters=[InputSerializer],
        responses=_responses(page_of("JobPage", OutputSerializer())),
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return _answer(
            lambda: selectors.job_list(
                namespace=data["namespace"], q=data["q"], limit=data["limit"], offset=data["offset"]
            )
        )


class JobDetailApi(APIView):
    """`GET /api/v1/jobs/detail?nodeId=job:…`: one job, its inputs, outputs and latest run."""

    permission_classes = [CanRead]

    class InputSerializer(NodeInput):
        pass

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "JobDetail"

        id = serializers.CharField()
        namespace = serializers.CharField()
        name = serializers.CharField()
        jobType = serializers.CharField(allow_null=True)
        facets = serializers.DictField()
        inputs = serializers.ListField(
            child=serializers.CharField(), help_text="an application job's: its own and its action jobs'"
        )
        outputs = serializers.ListField(
            child=serializers.CharField(), help_text="an application job's: its own and its action jobs'"
        )
        latestRun = RunSummarySerializer(allow_null=True)
        actions = serializers.ListField(
            child=serializers.CharField(),
            help_text="the job ids whose latest run's parent run is a run of this job (nested ones too); "
            "empty unless this is an application job",
        )
        application = serializers.CharField(
            allow_null=True, help_text="the (outermost) application job this job is an action of"
        )

    @extend_schema(operation_id="job_detail", parameters=[InputSerializer], responses=_responses(OutputSerializer))
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return _answer(lambda: selectors.job_detail(node_id=data["nodeId"]))


class JobRunListApi(APIView):
    """`GET /api/v1/jobs/runs?nodeId=job:…`: a job's runs, newest first."""

    permission_classes = [CanRead]

    class InputSerializer(PageInput, NodeInput):
        pass

    @extend_schema(
        operation_id="job_run_list",
        parameters=[InputSerializer],
        responses=_responses(page_of("RunPage", RunSummarySerializer())),
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return _answer(
            lambda: selectors.job_run_list(node_id=data["nodeId"], limit=data["limit"], offset=data["offset"])
        )


class RunDetailApi(APIView):
    """`GET /api/v1/jobs/runs/<runId>`: a run's state, times, error, facets, inputs and outputs."""

    permission_classes = [CanRead]

    @extend_schema(operation_id="run_detail", responses=_responses(OpenApiTypes.OBJECT))
    def get(self, request: Request, run_id: str) -> Response:
        try:
            return Response(selectors.run_for_id(run_id=run_id))
        except NodeNotFound as exc:
            return error_response("not_found", str(exc), http_status=404)


class FailureFilterInput(PageInput):
    namespace = serializers.CharField(required=False, default=None, help_text="the job's namespace")
    job = serializers.CharField(required=False, default=None, help_text="a job nodeId")
    classification = serializers.ChoiceField(
        choices=selectors.FAILURE_CLASSIFICATIONS, required=False, default=None, help_text="only failures of this kind"
    )
    since = InstantField(required=False, default=None, help_text="ended at or after (ISO 8601)")
    until = InstantField(required=False, default=None, help_text="ended at or before (ISO 8601)")


class FailureSerializer(serializers.Serializer):
    class Meta:
        ref_name = "FailureList"

    runId = serializers.CharField()
    job = serializers.CharField()
    state = serializers.ChoiceField(choices=selectors.FAILED_STATES)
    startedAt = serializers.CharField(allow_null=True)
    endedAt = serializers.CharField(allow_null=True)
    errorMessage = serializers.CharField(allow_null=True)
    stackTrace = serializers.CharField(allow_null=True)
    cause = serializers.CharField(
        allow_null=True,
        help_text=("the root cause, one line: the innermost exception (`<class>: <message>`) of the error"),
    )
    classification = serializers.ChoiceField(
        choices=selectors.FAILURE_CLASSIFICATIONS,
        allow_null=True,
        help_text=("what kind of failure the cause is (null for runs recorded before classification: rebuild_graph)"),
    )
    causeRunId = serializers.CharField(
        help_text=(
            "the run whose error is the headline: this run, or a failed child (action) run when this run's "
            "own error says nothing"
        )
    )
    parentRunId = serializers.CharField(allow_null=True, help_text="the application run of a child (action) run")
    failedActions = serializers.ListField(
        child=serializers.CharField(), help_text="jobs of this run's failed child (action) runs"
    )
    outputs = serializers.ListField(
        child=serializers.CharField(),
        help_text=("datasets the run (and its failed child runs) wrote plus their jobs' declared outputs"),
    )


class FailureListApi(APIView):
    """`GET /api/v1/failures?namespace=&job=&classification=&since=&until=`: failed and aborted runs,
    newest first, each headlined by its root cause."""

    permission_classes = [CanRead]

    class InputSerializer(FailureFilterInput):
        pass

    OutputSerializer = FailureSerializer

    @extend_schema(
        operation_id="failure_list",
        parameters=[InputSerializer],
        responses=_responses(page_of("FailurePage", OutputSerializer())),
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return _answer(
            lambda: selectors.failure_list(
                namespace=data["namespace"],
                job=data["job"],
                classification=data["classification"],
                since=data["since"],
                until=data["until"],
                limit=data["limit"],
                offset=data["offset"],
            ),
            node_parameter="job",
        )


class FailureJobListApi(APIView):
    """`GET /api/v1/failures/jobs?namespace=&job=&classification=&since=&until=`: failures grouped by job,
    the latest first, with the current streak of failures and the last failure's blast radius."""

    permission_classes = [CanRead]

    class InputSerializer(FailureFilterInput):
        limit = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, default=20)

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "FailureJobList"

        class BlastRadiusSerializer(serializers.Serializer):
            class Meta:
                ref_name = "FailureBlastRadius"

            class DatasetSerializer(serializers.Serializer):
                class Meta:
                    ref_name = "FailureBlastDataset"

                id = serializers.CharField()
                namespace = serializers.CharField()
                name = serializers.CharField()
                distance = serializers.IntegerField(help_text="hops from what the run should have written (0: it)")
                owners = serializers.ListField(child=serializers.CharField())

            datasets = DatasetSerializer(many=True, help_text=f"nearest first, at most {selectors.BLAST_LIMIT}")
            owners = serializers.ListField(child=serializers.CharField(), help_text="every listed dataset's owners")
            total = serializers.IntegerField(help_text="datasets reached (listed or not)")
            truncated = serializers.BooleanField()
            depth = serializers.IntegerField(help_text="hops followed downstream")

        job = serializers.CharField()
        namespace = serializers.CharField()
        name = serializers.CharField()
        failureCount = serializers.IntegerField(help_text="the job's failures that match the filters")
        consecutiveFailures = serializers.IntegerField(
            help_text=("the latest run and the runs before it that failed, up to the first that did not")
        )
        consecutiveFailuresCapped = serializers.BooleanField(
            help_text=(f"true when the count stopped at {selectors.STREAK_LIMIT} runs")
        )
        failingSince = serializers.CharField(
            allow_null=True,
            help_text=(
                "when the current streak of failures began (its first run's start); null when the latest run did "
                "not fail"
            ),
        )
        latestRunState = serializers.CharField(allow_null=True)
        lastFailure = FailureSerializer(allow_null=True, help_text="the latest failure matching the filters")
        blastRadius = BlastRadiusSerializer(
            help_text=("datasets downstream of what the last failure should have written, and their owners")
        )

    @extend_schema(
        operation_id="failure_job_list",
        parameters=[InputSerializer],
        responses=_responses(page_of("FailureJobPage", OutputSerializer())),
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return _answer(
            lambda: selectors.failure_job_list(
                namespace=data["namespace"],
                job=data["job"],
                classification=data["classification"],
                since=data["since"],
                until=data["until"],
                limit=data["limit"],
                offset=data["offset"],
            ),
            node_parameter="job",
        )


_TYPE = "|".join(selectors.SEARCH_TYPES)
_TYPES_PATTERN = rf"^({_TYPE})(,({_TYPE}))*$"
_TYPES_MESSAGE = f"types must be a comma-separated subset of {', '.join(selectors.SEARCH_TYPES)}"


class NodeSearchApi(APIView):
    """`GET /api/v1/search?q=&types=dataset,job,field&limit=`: nodes by name, best match first."""

    permission_classes = [CanRead]

    class InputSerializer(QueryInput):
        q = serializers.CharField()
        types = serializers.CharField(
            required=False,
            default=",".join(selectors.SEARCH_TYPES),
            help_text="comma-separated: dataset, job, field",
            validators=[RegexValidator(_TYPES_PATTERN, message=_TYPES_MESSAGE)],
        )
        limit = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, default=50)

        def validate_types(self, value: str) -> list[str]:
            return list(dict.fromkeys(value.split(",")))

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "NodeSearch"

        class HitSerializer(serializers.Serializer):
            class Meta:
                ref_name = "NodeSearchHit"

            id = serializers.CharField()
            type = serializers.ChoiceField(choices=["DATASET", "JOB", "DATASET_FIELD"])
            namespace = serializers.CharField()
            name = serializers.CharField()
            dataset = serializers.CharField(required=False, help_text="fields only")
            actionCount = serializers.IntegerField(
                required=False, help_text="jobs only: how many jobs this job is the application of (0: none)"
            )
            application = serializers.CharField(
                required=False, allow_null=True, help_text="jobs only: the application job this job is an action of"
            )

        results = HitSerializer(many=True)

    @extend_schema(operation_id="node_search", parameters=[InputSerializer], responses=_responses(OutputSerializer))
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return _answer(lambda: selectors.node_search(q=data["q"], types=data["types"], limit=data["limit"]))
