"""Impact analysis (streamed JSON), its downloadable reports, and root cause."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import BaseParser
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.permissions import CanRead
from lineage_app.api_errors import error_response
from lineage_app.api_support import (
    ERRORS,
    RUN_STATES,
    ColumnEdgeSerializer,
    FieldRenameSerializer,
    MomentInput,
    QualityStatusField,
    ResponseSerializer,
    moment_of,
    query_params,
    response_of,
)
from lineage_app.graph.model import ASSET_TYPES, FAILED_STATES, LEVELS, LINEAGE_NODE_TYPES
from lineage_app.graph.node_ids import NodeNotFound
from lineage_app.json_renderer import FastJSONRenderer
from lineage_app.ownership.apis import EffectiveOwnerOutput
from lineage_app.reports import exports, selectors

ROOT_CAUSE_DEFAULT_DEPTH = 10


class JsonOnly(BaseContentNegotiation):
    """Always JSON for errors: `format` here names the report's format, not DRF's renderer."""

    def select_parser(self, request: Request, parsers: Iterable[BaseParser]) -> BaseParser | None:
        return next(iter(parsers), None)

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderer = next(iter(renderers))
        return renderer, renderer.media_type


# Every impact answer says how many stale edges it left out, also a CSV download, which has no summary.
STALE_LEFT_OUT_HEADER = "X-Stale-Edges-Left-Out"


class ImpactInput(MomentInput):
    nodeId = serializers.ListField(
        child=serializers.CharField(),
        min_length=1,
        max_length=500,
        help_text="repeatable: `dataset:…`, `job:…` or `datasetField:…` (several fields of one change)",
    )
    depth = serializers.IntegerField(min_value=1, max_value=settings.LINEAGE_MAX_DEPTH, default=10)
    level = serializers.ChoiceField(
        choices=LEVELS,
        default="application",
        help_text="`application`: each action job (a job whose runs have a parent run, e.g. a Spark action) is "
        "folded into its application job, listed once with its `actions`; `action`: action jobs as "
        "recorded, each naming its `application`",
    )


class _ReportApi(APIView):
    permission_classes = [CanRead]
    renderer_classes = [FastJSONRenderer]
    content_negotiation_class = JsonOnly

    def _report(self, request: Request, serializer: type[serializers.Serializer]) -> tuple[Any, dict[str, Any]]:
        data = query_params(serializer, request)
        try:
            report = selectors.impact_report(
                node_ids=data["nodeId"], depth=data["depth"], moment=moment_of(data), level=data["level"]
            )
        except NodeNotFound as exc:
            return error_response("not_found", str(exc), path="nodeId", http_status=404), data
        return report, data


class ImpactApi(_ReportApi):
    """`GET /api/v1/impact?nodeId=…[&nodeId=…]&depth=&asOf=`: everything downstream, streamed as JSON.

    Each asset has its distance, the path to it (node ids), the column edges along it (job,
    transformation), its effective owners, its last run's state and time (a job also its
    `actions` / `application`, see `level`); a summary follows.
    """

    # The streamed answer's shape: `exports.export_json` writes it an asset at a time, so it does not
    # pass through this serializer; tests/api/test_response_contract.py holds it to this shape.
    class OutputSerializer(ResponseSerializer):
        """The report's header, then its assets, then a summary of them."""

        class Meta:
            ref_name = "Impact"

        class AssetSerializer(ResponseSerializer):
            class Meta:
                ref_name = "ImpactAsset"

            id = serializers.CharField()
            type = serializers.ChoiceField(choices=ASSET_TYPES)
            namespace = serializers.CharField()
            name = serializers.CharField()
            dataset = serializers.CharField(required=False, help_text="fields only: the field's dataset")
            fieldType = serializers.CharField(allow_null=True, required=False, help_text="fields only")
            actions = serializers.ListField(
                child=serializers.CharField(),
                required=False,
                help_text="jobs only: at `level=application`, the action jobs folded into this one (else empty)",
            )
            application = serializers.CharField(
                allow_null=True,
                required=False,
                help_text="jobs only: at `level=action`, the application job this one is an action of",
            )
            distance = serializers.IntegerField(help_text="hops from the nearest start")
            path = serializers.ListField(child=serializers.CharField(), help_text="node ids from a start to this one")
            transformations = ColumnEdgeSerializer(many=True, help_text="the column edges along `path`")
            owners = EffectiveOwnerOutput(many=True, help_text="effective owners (a field: its dataset's)")
            lastRunState = serializers.ChoiceField(choices=RUN_STATES, allow_null=True)
            lastRunTime = serializers.CharField(allow_null=True)
            quality = QualityStatusField(
                required=False, help_text="datasets: their data-quality status now (docs/quality.md)"
            )

        class SummarySerializer(ResponseSerializer):
            class Meta:
                ref_name = "ImpactSummary"

            total = serializers.IntegerField()
            staleLeftOut = serializers.IntegerField(
                help_text="stale edges leading on from the assets, whose paths were left out (`includeStale`)"
            )
            byType = serializers.DictField(child=serializers.IntegerField())
            byOwner = serializers.DictField(
                child=serializers.IntegerField(), help_text=f"most first; unowned assets under `{selectors.UNOWNED}`"
            )
            byNamespace = serializers.DictField(child=serializers.IntegerField(), help_text="most first")
            byDepth = serializers.DictField(child=serializers.IntegerField(), help_text="by distance (as text)")

        nodeIds = serializers.ListField(child=serializers.CharField(), help_text="the starts, as resolved")
        depth = serializers.IntegerField()
        at = serializers.CharField(allow_null=True, help_text="the instant asked about; null: now")
        asOf = serializers.CharField(allow_null=True, help_text="deprecated: the same as `at`")
        includeStale = serializers.BooleanField()
        level = serializers.ChoiceField(choices=LEVELS)
        generatedAt = serializers.CharField()
        assets = AssetSerializer(many=True, help_text="nearest first")
        summary = SummarySerializer()

    @extend_schema(operation_id="impact", parameters=[ImpactInput], responses={200: OutputSerializer, **ERRORS})
    def get(self, request: Request) -> Any:
        report, _ = self._report(request, ImpactInput)
        if not isinstance(report, selectors.ImpactReport):
            return report
        response = StreamingHttpResponse(
            exports.ReportPieces(report, "json"), content_type=exports.CONTENT_TYPES["json"]
        )
        response[STALE_LEFT_OUT_HEADER] = str(report.traversal.stale_left_out)
        return response


class ImpactReportInput(ImpactInput):
    format = serializers.ChoiceField(choices=exports.FORMATS, default="json")


class ImpactReportApi(_ReportApi):
    """`GET /api/v1/impact/report?nodeId=…&format=json|csv|html|pdf`: the impact report as a download."""

    @extend_schema(
        operation_id="impact_report",
        parameters=[ImpactReportInput],
        responses={200: OpenApiResponse(OpenApiTypes.BINARY, description="the report file"), **ERRORS},
    )
    def get(self, request: Request) -> Any:
        report, data = self._report(request, ImpactReportInput)
        if not isinstance(report, selectors.ImpactReport):
            return report
        fmt = data["format"]
        disposition = f'attachment; filename="{exports.report_filename(report, fmt)}"'
        response: HttpResponse | StreamingHttpResponse
        if fmt == "pdf":
            try:
                if (rows := report.traversal.asset_count()) > settings.IMPACT_PDF_MAX_ROWS:
                    return error_response(
                        "too_large",
                        f"the report has {rows} assets, more than a PDF holds ({settings.IMPACT_PDF_MAX_ROWS}): "
                        "ask for format=csv or format=json, which stream any number",
                        path="format",
                        http_status=400,
                    )
                response = HttpResponse(exports.export_pdf(report), content_type=exports.CONTENT_TYPES[fmt])
            finally:
                report.close()
        else:
            response = StreamingHttpResponse(exports.ReportPieces(report, fmt), content_type=exports.CONTENT_TYPES[fmt])
        response["Content-Disposition"] = disposition
        response[STALE_LEFT_OUT_HEADER] = str(report.traversal.stale_left_out)  # CSV has no summary of its own
        response["X-Content-Type-Options"] = "nosniff"
        return response


class RootCauseApi(APIView):
    """`GET /api/v1/root-cause?nodeId=dataset:…&depth=`: upstream assets, the latest failure or schema change first."""

    permission_classes = [CanRead]

    class InputSerializer(MomentInput):
        nodeId = serializers.CharField(help_text="a `dataset:…` id")
        depth = serializers.IntegerField(
            min_value=1, max_value=settings.LINEAGE_MAX_DEPTH, default=ROOT_CAUSE_DEFAULT_DEPTH
        )

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "RootCause"

        class AssetSerializer(ResponseSerializer):
            class Meta:
                ref_name = "RootCauseAsset"

            class EventSerializer(ResponseSerializer):
                """A job's failed or aborted run, or a dataset's new schema version."""

                class Meta:
                    ref_name = "RootCauseEvent"

                kind = serializers.ChoiceField(choices=["failure", "schema_change"])
                at = serializers.CharField(allow_null=True, help_text="when the run ended, or the version appeared")
                runId = serializers.CharField(allow_null=True, help_text="the failed run, or the writing run")
                state = serializers.ChoiceField(choices=FAILED_STATES, required=False, help_text="failures only")
                version = serializers.CharField(required=False, help_text="schema changes only")
                message = serializers.CharField(allow_null=True, help_text="the run's error, or what changed")
                added = serializers.ListField(
                    child=serializers.CharField(), required=False, help_text="schema changes only: field names"
                )
                removed = serializers.ListField(
                    child=serializers.CharField(), required=False, help_text="schema changes only: field names"
                )
                retyped = serializers.ListField(
                    child=serializers.CharField(), required=False, help_text="schema changes only: field names"
                )
                renamed = FieldRenameSerializer(
                    many=True, required=False, help_text="schema changes only: removed and added fields read as renames"
                )

            id = serializers.CharField()
            type = serializers.ChoiceField(choices=LINEAGE_NODE_TYPES)
            distance = serializers.IntegerField(help_text="hops upstream of `nodeId`")
            path = serializers.ListField(child=serializers.CharField(), help_text="from this asset down to `nodeId`")
            lastEventAt = serializers.CharField(allow_null=True)
            lastEvent = EventSerializer(allow_null=True)
            events = EventSerializer(many=True, help_text="newest first")

        nodeId = serializers.CharField()
        depth = serializers.IntegerField()
        results = AssetSerializer(
            many=True, help_text="the latest failure or schema change first; assets with none follow, nearest first"
        )

    @extend_schema(operation_id="root_cause", parameters=[InputSerializer], responses={200: OutputSerializer, **ERRORS})
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        try:
            return response_of(
                self.OutputSerializer,
                selectors.root_cause_for_node(node_id=data["nodeId"], depth=data["depth"], moment=moment_of(data)),
            )
        except NodeNotFound as exc:
            return error_response("not_found", str(exc), path="nodeId", http_status=404)
