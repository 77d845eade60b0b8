"""Failure endpoints: failed and aborted runs, and the same grouped by job with their blast radius."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.permissions import CanRead
from lineage_app.api_support import (
    MAX_PAGE,
    RUN_STATES,
    InstantField,
    PageInput,
    ResponseSerializer,
    page_of,
    query_params,
)
from lineage_app.explorer.apis.shared import response_read, responses_documented
from lineage_app.explorer.selectors.blast_radius import BLAST_LIMIT
from lineage_app.explorer.selectors.failures import STREAK_LIMIT, failure_job_list, failure_list
from lineage_app.graph.failure_cause import CLASSIFICATIONS
from lineage_app.graph.model import FAILURE_STATES


class FailureFilterInput(PageInput):
    namespace = serializers.CharField(required=False, default=None, help_text="the job's namespace")
    job = serializers.CharField(required=False, default=None, help_text="a job nodeId")
    classification = serializers.ChoiceField(
        choices=CLASSIFICATIONS, required=False, default=None, help_text="only failures of this kind"
    )
    since = InstantField(required=False, default=None, help_text="ended at or after (ISO 8601)")
    until = InstantField(required=False, default=None, help_text="ended at or before (ISO 8601)")


def _failure_page(
    request: Request,
    *,
    filters: type[FailureFilterInput],
    page: type[ResponseSerializer],
    read: Callable[..., Mapping[str, Any]],
) -> Response:
    """A page read by `read` (`failure_list` or `failure_job_list`: each takes every filter of
    `FailureFilterInput` by name); an unknown `job` is a 404 naming it."""
    data = query_params(filters, request)
    return response_read(serializer=page, read=lambda: read(**data), node_parameter="job")


class FailureSerializer(ResponseSerializer):
    class Meta:
        ref_name = "FailureList"

    runId = serializers.CharField()
    job = serializers.CharField()
    state = serializers.ChoiceField(
        choices=FAILURE_STATES,
        help_text="COMPLETED for a run that ended but failed its data-quality checks (classification data_quality)",
    )
    startedAt = serializers.CharField(allow_null=True)
    endedAt = serializers.CharField(allow_null=True)
    errorMessage = serializers.CharField(allow_null=True)
    stackTrace = serializers.CharField(allow_null=True)
    cause = serializers.CharField(
        allow_null=True,
        help_text=("the root cause, one line: the innermost exception (`<class>: <message>`) of the error"),
    )
    classification = serializers.ChoiceField(
        choices=CLASSIFICATIONS,
        allow_null=True,
        help_text=("what kind of failure the cause is (null for runs recorded before classification: rebuild_graph)"),
    )
    parentRunId = serializers.CharField(allow_null=True, help_text="the application run of a child (action) run")
    causeRunId = serializers.CharField(
        help_text=(
            "the run whose error is the headline: this run, or a failed child (action) run when this run's "
            "own error says nothing"
        )
    )
    failedActions = serializers.ListField(
        child=serializers.CharField(), help_text="jobs of this run's failed child (action) runs"
    )
    outputs = serializers.ListField(
        child=serializers.CharField(),
        help_text=("datasets the run (and its failed child runs) wrote plus their jobs' declared outputs"),
    )
    testedDatasets = serializers.ListField(
        child=serializers.CharField(),
        help_text=(
            "datasets the run's (and its failed child runs') data-quality checks failed on; a data_quality "
            "failure's blast radius and root-cause walk start at them"
        ),
    )


class FailureListApi(APIView):
    """`GET /api/v1/failures?namespace=&job=&classification=&since=&until=`: failed and aborted runs,
    newest first, each headlined by its root cause."""

    permission_classes = [CanRead]

    class InputSerializer(FailureFilterInput):
        pass

    OutputSerializer = FailureSerializer
    PageSerializer = page_of("FailurePage", OutputSerializer())

    @extend_schema(
        operation_id="failure_list", parameters=[InputSerializer], responses=responses_documented(PageSerializer)
    )
    def get(self, request: Request) -> Response:
        return _failure_page(request, filters=self.InputSerializer, page=self.PageSerializer, read=failure_list)


class SinceLastSuccessSerializer(ResponseSerializer):
    runId = serializers.CharField(help_text="the job's last successful run before the failure")
    addedReads = serializers.ListField(child=serializers.CharField(), help_text="new input since the last success")
    removedReads = serializers.ListField(child=serializers.CharField(), help_text="read then, not by the failed run")
    addedWrites = serializers.ListField(child=serializers.CharField())
    removedWrites = serializers.ListField(child=serializers.CharField())


class FailureJobListApi(APIView):
    """`GET /api/v1/failures/jobs?namespace=&job=&classification=&since=&until=`: failures grouped by job,
    the latest first, with the current streak of failures and the last failure's blast radius."""

    permission_classes = [CanRead]

    class InputSerializer(FailureFilterInput):
        limit = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, default=20)

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "FailureJobList"

        class BlastRadiusSerializer(ResponseSerializer):
            class Meta:
                ref_name = "FailureBlastRadius"

            class DatasetSerializer(ResponseSerializer):
                class Meta:
                    ref_name = "FailureBlastDataset"

                id = serializers.CharField()
                namespace = serializers.CharField()
                name = serializers.CharField()
                distance = serializers.IntegerField(help_text="hops from what the run should have written (0: it)")
                owners = serializers.ListField(child=serializers.CharField())

            datasets = DatasetSerializer(many=True, help_text=f"nearest first, at most {BLAST_LIMIT}")
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
            help_text=(f"true when the count stopped at {STREAK_LIMIT} runs")
        )
        failingSince = serializers.CharField(
            allow_null=True,
            help_text=(
                "when the current streak of failures began (its first run's start); null when the latest run did "
                "not fail"
            ),
        )
        latestRunState = serializers.ChoiceField(choices=RUN_STATES, allow_null=True)
        lastFailure = FailureSerializer(allow_null=True, help_text="the latest failure matching the filters")
        sinceLastSuccess = SinceLastSuccessSerializer(
            allow_null=True,
            help_text="what the last failure read or wrote that the job's last successful run did not, and the "
            "reverse (docs/time.md); null when the job completed no run before it",
        )
        blastRadius = BlastRadiusSerializer(
            help_text=("datasets downstream of what the last failure should have written, and their owners")
        )

    PageSerializer = page_of("FailureJobPage", OutputSerializer())

    @extend_schema(
        operation_id="failure_job_list",
        parameters=[InputSerializer],
        responses=responses_documented(PageSerializer),
    )
    def get(self, request: Request) -> Response:
        return _failure_page(request, filters=self.InputSerializer, page=self.PageSerializer, read=failure_job_list)
