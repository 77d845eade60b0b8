"""Job endpoints: the list, one job's detail, its runs, and one run."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.permissions import CanRead
from lineage_app.api_support import RUN_STATES, PageInput, ResponseSerializer, page_of, query_params
from lineage_app.explorer.apis.shared import (
    VERIFICATIONS,
    ListFilterInput,
    NodeInput,
    response_read,
    responses_documented,
)
from lineage_app.explorer.selectors.jobs_and_runs import job_detail, job_list, job_run_list, run_for_id
from lineage_app.explorer.selectors.run_lineage import run_lineage
from lineage_app.graph.failure_cause import CLASSIFICATIONS
from lineage_app.ingest.models import LineageEvent


class StreamingSerializer(ResponseSerializer):
    """A streaming query's run as its latest event reports it (the `tributary_streaming` run facet)."""

    class Meta:
        ref_name = "Streaming"

    runningSince = serializers.CharField(allow_null=True, help_text="when the query started")
    lastProgressAt = serializers.CharField(allow_null=True, help_text="its latest micro-batch; null before the first")
    inputRowsPerSecond = serializers.FloatField(allow_null=True)
    processedRowsPerSecond = serializers.FloatField(allow_null=True)
    batchId = serializers.IntegerField(allow_null=True)
    intervalSeconds = serializers.FloatField(help_text="the agent reports progress at most once per this")
    stalled = serializers.BooleanField(
        help_text="not ended, and silent for `STREAMING_STALL_INTERVALS` intervals (a hung or killed query)"
    )


class RunSummarySerializer(ResponseSerializer):
    runId = serializers.CharField()
    state = serializers.ChoiceField(choices=RUN_STATES)
    startedAt = serializers.CharField(allow_null=True)
    endedAt = serializers.CharField(allow_null=True)
    durationMs = serializers.IntegerField(allow_null=True)
    errorMessage = serializers.CharField(allow_null=True)
    cause = serializers.CharField(allow_null=True, help_text="a failed / aborted run's root cause, one line")
    classification = serializers.ChoiceField(
        choices=CLASSIFICATIONS, allow_null=True, help_text="a failed / aborted run's kind of failure"
    )
    verification = serializers.ChoiceField(
        choices=VERIFICATIONS, allow_null=True, help_text="the worst signature status of the run's events"
    )
    streaming = StreamingSerializer(required=False, help_text="a streaming query's run only: its live progress")
    command = serializers.CharField(
        allow_null=True,
        help_text="what an orchestrator's run ran, from its steps: dbt's `seed`, `run`, `test`, `snapshot` or "
        "`build`; else how its Airflow DAG run was triggered (`scheduled`, `manual`, `backfill`, …); null for other "
        "runs (docs/api.md)",
    )


class CommandRunSerializer(ResponseSerializer):
    command = serializers.CharField()
    run = RunSummarySerializer(help_text="the job's latest run of that command")


class JobListApi(APIView):
    """`GET /api/v1/jobs?namespace=&q=`: jobs by namespace and name, with their latest run."""

    permission_classes = [CanRead]

    class InputSerializer(ListFilterInput):
        pass

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "JobList"

        id = serializers.CharField()
        namespace = serializers.CharField()
        name = serializers.CharField()
        jobType = serializers.CharField(allow_null=True)
        latestRunState = serializers.ChoiceField(choices=RUN_STATES, allow_null=True)
        latestRunTime = serializers.CharField(allow_null=True)

    PageSerializer = page_of("JobPage", OutputSerializer())

    @extend_schema(
        operation_id="job_list", parameters=[InputSerializer], responses=responses_documented(PageSerializer)
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return response_read(
            serializer=self.PageSerializer,
            read=lambda: job_list(namespace=data["namespace"], q=data["q"], limit=data["limit"], offset=data["offset"]),
        )


class JobDetailApi(APIView):
    """`GET /api/v1/jobs/detail?nodeId=job:…`: one job, its inputs, outputs and latest run."""

    permission_classes = [CanRead]

    class InputSerializer(NodeInput):
        pass

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "JobDetail"

        id = serializers.CharField()
        namespace = serializers.CharField()
        name = serializers.CharField()
        jobType = serializers.CharField(allow_null=True)
        facets = serializers.DictField()
        inputs = serializers.ListField(
            child=serializers.CharField(),
            help_text="what it reads now (an application job's: its own and its action jobs'; docs/time.md)",
        )
        inferredInputs = serializers.ListField(
            child=serializers.CharField(),
            help_text="those of `inputs` only inferred from column lineage: its column lineage names them as sources, "
            "no event listed them as inputs (docs/dbt.md)",
        )
        outputs = serializers.ListField(
            child=serializers.CharField(), help_text="what it writes now (an application job's: with its actions')"
        )
        formerInputs = serializers.ListField(
            child=serializers.CharField(), help_text="what it read once and its latest completed runs no longer do"
        )
        formerOutputs = serializers.ListField(
            child=serializers.CharField(), help_text="what it wrote once and its latest completed runs no longer do"
        )
        latestRun = RunSummarySerializer(allow_null=True)
        latestByCommand = CommandRunSerializer(
            many=True,
            help_text="the latest run of each command among its newest runs (a dbt project's `run` and `test` each "
            "with its own status); empty when its runs name none",
        )
        streaming = StreamingSerializer(required=False, help_text="its latest run's, when that is a streaming query")
        actions = serializers.ListField(
            child=serializers.CharField(),
            help_text="the job ids whose latest run's parent run is a run of this job (nested ones too); "
            "empty unless this is an application job",
        )
        application = serializers.CharField(
            allow_null=True, help_text="the (outermost) application job this job is an action of"
        )

        class DependencySerializer(ResponseSerializer):
            class Meta:
                ref_name = "JobDependency"

            jobId = serializers.CharField()
            direction = serializers.ChoiceField(
                choices=["downstream", "upstream"], help_text="`upstream`: it runs before this job"
            )
            current = serializers.BooleanField(help_text="a declaring job's latest completed runs still declare it")
            declaredBy = serializers.ListField(
                child=serializers.CharField(), help_text="the jobs whose runs declared it"
            )
            dependencyType = serializers.CharField(allow_null=True, help_text="as sent: `DIRECT_INVOCATION`, …")
            sequenceTriggerRule = serializers.CharField(allow_null=True)
            statusTriggerRule = serializers.CharField(allow_null=True)

        dependencies = DependencySerializer(
            many=True, help_text="job dependencies its runs or the other job's declared (`jobDependencies` run facet)"
        )

    @extend_schema(
        operation_id="job_detail", parameters=[InputSerializer], responses=responses_documented(OutputSerializer)
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return response_read(serializer=self.OutputSerializer, read=lambda: job_detail(node_id=data["nodeId"]))


class JobRunListApi(APIView):
    """`GET /api/v1/jobs/runs?nodeId=job:…`: a job's runs, newest first."""

    permission_classes = [CanRead]

    class InputSerializer(PageInput, NodeInput):
        pass

    PageSerializer = page_of("RunPage", RunSummarySerializer())

    @extend_schema(
        operation_id="job_run_list", parameters=[InputSerializer], responses=responses_documented(PageSerializer)
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return response_read(
            serializer=self.PageSerializer,
            read=lambda: job_run_list(node_id=data["nodeId"], limit=data["limit"], offset=data["offset"]),
        )


class RunDetailApi(APIView):
    """`GET /api/v1/jobs/runs/<runId>`: a run's state, times, error, facets, inputs and outputs."""

    permission_classes = [CanRead]

    class OutputSerializer(ResponseSerializer):
        """A run as its node records it: what the run has not reported is left out (a completed run has no
        `errorMessage`); a run known only as another run's parent has only its ids, job, state (`NEW`)
        and lists."""

        class Meta:
            ref_name = "RunDetail"

        class EventSerializer(ResponseSerializer):
            class Meta:
                ref_name = "RunDetailEvent"

            class WarningSerializer(ResponseSerializer):
                class Meta:
                    ref_name = "RunDetailEventWarning"

                path = serializers.CharField(help_text="where in the event, e.g. `run.facets.custom`")
                message = serializers.CharField()

            id = serializers.IntegerField(help_text="the event's row in the event log")
            eventType = serializers.CharField(help_text="`START`, `RUNNING`, `COMPLETE`, `FAIL`, `ABORT` or `OTHER`")
            eventTime = serializers.CharField()
            verification = serializers.ChoiceField(choices=VERIFICATIONS, allow_null=True)
            status = serializers.ChoiceField(choices=LineageEvent.Status.values, help_text="applied to the graph yet?")
            warnings = WarningSerializer(
                many=True, required=False, help_text="facets left out (they failed their schema); only when some were"
            )
            contentHash = serializers.CharField(help_text="SHA-256 of its canonical bytes, as the ledger knows it")

            class ChainSerializer(ResponseSerializer):
                class Meta:
                    ref_name = "RunDetailEventChain"

                stream = serializers.CharField(help_text="`<keyId>/<instance>` (docs/ledger.md)")
                seq = serializers.IntegerField()

            class InclusionSerializer(ResponseSerializer):
                class Meta:
                    ref_name = "RunDetailEventInclusion"

                leafIndex = serializers.IntegerField(help_text="its leaf in the transparency log")
                checkpoint = serializers.IntegerField(
                    allow_null=True, help_text="tree size of the first checkpoint that includes it; null until one does"
                )
                witnessed = serializers.BooleanField(help_text="a witness cosigned a checkpoint that includes it")

            chain = ChainSerializer(allow_null=True, help_text="its verified chain position; null when unchained")
            inclusion = InclusionSerializer(allow_null=True, help_text="its place in the transparency log")

        id = serializers.CharField(help_text="`run:<runId>`")
        runId = serializers.CharField()
        jobNamespace = serializers.CharField()
        jobName = serializers.CharField()
        state = serializers.ChoiceField(choices=RUN_STATES, help_text="`NEW` for a run known only as a parent")
        startedAt = serializers.CharField(allow_null=True, required=False)
        endedAt = serializers.CharField(allow_null=True, required=False)
        durationMs = serializers.IntegerField(allow_null=True, required=False)
        nominalStartTime = serializers.CharField(allow_null=True, required=False)
        nominalEndTime = serializers.CharField(allow_null=True, required=False)
        errorMessage = serializers.CharField(allow_null=True, required=False)
        stackTrace = serializers.CharField(allow_null=True, required=False)
        errorLanguage = serializers.CharField(allow_null=True, required=False)
        failureCause = serializers.CharField(
            allow_null=True, required=False, help_text="a failed / aborted run's root cause, one line"
        )
        failureClass = serializers.ChoiceField(
            choices=CLASSIFICATIONS,
            allow_null=True,
            required=False,
            help_text="a failed / aborted run's kind of failure",
        )
        parentRunId = serializers.CharField(allow_null=True, required=False)
        command = serializers.CharField(
            allow_null=True,
            help_text="what an orchestrator's run ran, from its steps (dbt's `run`, `test`, …), else its Airflow DAG "
            "run's trigger (`scheduled`, `manual`, …)",
        )
        eventCount = serializers.IntegerField(required=False)
        lastEventTime = serializers.CharField(required=False)
        completedOrder = serializers.CharField(
            allow_null=True,
            required=False,
            help_text="a completed run's place among its job's completed runs (its end, then its runId); "
            "the order that decides which edges are current (docs/time.md)",
        )
        facets = serializers.DictField(help_text="the run facets of its events, merged in eventTime order")
        inputs = serializers.ListField(child=serializers.CharField(), help_text="dataset ids the run read")
        outputs = serializers.ListField(child=serializers.CharField(), help_text="dataset ids the run wrote")
        stepInputs = serializers.ListField(
            child=serializers.CharField(),
            help_text="dataset ids its child runs and theirs (a Spark application's actions, a DAG's tasks) read, "
            "that it did not read itself",
        )
        stepOutputs = serializers.ListField(
            child=serializers.CharField(),
            help_text="dataset ids its child runs and theirs wrote, that it did not write itself",
        )

        class SubsetSerializer(ResponseSerializer):
            class Meta:
                ref_name = "RunSubset"

            datasetId = serializers.CharField()
            subset = serializers.CharField(
                help_text="the part of it the run read or wrote (`subset` facet): `date=2026-11-24` for a partition "
                "(several joined by `, `, a partition's dimensions by `/`), the locations, or the condition"
            )

        inputSubsets = SubsetSerializer(many=True, help_text="the inputs the run read part of, with that part")
        outputSubsets = SubsetSerializer(
            many=True,
            help_text="the outputs the run wrote part of (a partition), with that part: not the whole dataset",
        )
        children = serializers.ListField(child=serializers.CharField(), help_text="the runIds of its child runs")

        class HierarchySerializer(ResponseSerializer):
            class Meta:
                ref_name = "RunHierarchy"

            class RunRefSerializer(ResponseSerializer):
                class Meta:
                    ref_name = "RunRef"

                runId = serializers.CharField()
                jobId = serializers.CharField(help_text="`job:<namespace>:<name>`, the job it is a run of")
                state = serializers.ChoiceField(choices=RUN_STATES, help_text="`NEW` for a run known only by reference")
                startedAt = serializers.CharField(allow_null=True)
                parentRunId = serializers.CharField(allow_null=True, help_text="the run its parent facet names")

            root = RunRefSerializer(
                allow_null=True,
                help_text="the root of its chain (ParentRunFacet `root`, else its topmost ancestor); null for a root",
            )
            parent = RunRefSerializer(allow_null=True, help_text="its parent run; null for none")
            children = RunRefSerializer(
                many=True,
                help_text="its child runs (an application's actions, a DAG run's tasks), the first started first",
            )
            descendants = RunRefSerializer(
                many=True,
                help_text="the runs further below it that name it their root, and any run between (a task that sent "
                "no event), each with its parent: nest them by `parentRunId`",
            )

        hierarchy = HierarchySerializer(help_text="its place in its chain of runs (ParentRunFacet `parent`, `root`)")
        verification = serializers.ChoiceField(
            choices=VERIFICATIONS, allow_null=True, help_text="the worst signature status of its events"
        )
        events = EventSerializer(many=True, help_text="its events in the event log, by eventTime")
        streaming = StreamingSerializer(
            required=False, help_text="a streaming query's run (its latest event reports progress): its live progress"
        )

    @extend_schema(operation_id="run_detail", responses=responses_documented(OutputSerializer))
    def get(self, request: Request, run_id: str) -> Response:
        return response_read(
            serializer=self.OutputSerializer, read=lambda: run_for_id(run_id=run_id), node_parameter=None
        )


class RunLineageApi(APIView):
    """`GET /api/v1/jobs/runs/<runId>/lineage`: exactly what a run read and wrote (its child runs' included),
    and what changed since its job's previous completed run."""

    permission_classes = [CanRead]

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "RunLineage"

        class DatasetSerializer(ResponseSerializer):
            class Meta:
                ref_name = "RunLineageDataset"

            id = serializers.CharField()
            namespace = serializers.CharField()
            name = serializers.CharField()

        class ChangesSerializer(ResponseSerializer):
            class Meta:
                ref_name = "RunLineageChanges"

            addedReads = serializers.ListField(
                child=serializers.CharField(), help_text="read now, not by the previous run"
            )
            removedReads = serializers.ListField(
                child=serializers.CharField(), help_text="read by the previous run only"
            )
            addedWrites = serializers.ListField(child=serializers.CharField())
            removedWrites = serializers.ListField(child=serializers.CharField())

        runId = serializers.CharField()
        jobId = serializers.CharField()
        state = serializers.ChoiceField(choices=RUN_STATES, allow_null=True)
        startedAt = serializers.CharField(allow_null=True)
        endedAt = serializers.CharField(allow_null=True)
        reads = DatasetSerializer(many=True, help_text="the datasets it (or a child run) read")
        writes = DatasetSerializer(many=True, help_text="the datasets it (or a child run) wrote")
        previousRunId = serializers.CharField(
            allow_null=True, help_text="the job's latest run to complete before this one ended (or before now)"
        )
        changes = ChangesSerializer(allow_null=True, help_text="null when the job has no earlier completed run")

    @extend_schema(operation_id="run_lineage", responses=responses_documented(OutputSerializer))
    def get(self, request: Request, run_id: str) -> Response:
        return response_read(
            serializer=self.OutputSerializer, read=lambda: run_lineage(run_id=run_id), node_parameter=None
        )
