"""Data-quality endpoint: a dataset's current quality status and its history of checks and metrics."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.permissions import CanRead
from lineage_app.api_support import (
    QUALITY_STATUS_HELP,
    RUN_STATES,
    PageInput,
    QualityStatusField,
    ResponseSerializer,
    query_params,
)
from lineage_app.explorer.apis.shared import NodeInput, response_read, responses_documented
from lineage_app.explorer.selectors.quality import dataset_quality
from lineage_app.graph.quality import CHECK_FACETS, CHECK_OUTCOMES


class DatasetQualityApi(APIView):
    """`GET /api/v1/datasets/quality?nodeId=dataset:…`: a dataset's quality status and its reports, newest first."""

    permission_classes = [CanRead]

    class InputSerializer(NodeInput, PageInput):
        pass

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "DatasetQuality"

        class ReportSerializer(ResponseSerializer):
            class Meta:
                ref_name = "DatasetQualityReport"

            class CheckSerializer(ResponseSerializer):
                class Meta:
                    ref_name = "DatasetQualityCheck"

                facet = serializers.ChoiceField(
                    choices=CHECK_FACETS,
                    help_text="the dataset facet `dataQualityAssertions` or the run facet `test` (TestRunFacet)",
                )
                name = serializers.CharField(allow_null=True, help_text="the check's name, when sent")
                assertion = serializers.CharField(help_text="what kind of check: not_null, unique, accepted_values…")
                column = serializers.CharField(allow_null=True, help_text="null for a check of the whole dataset")
                severity = serializers.CharField(allow_null=True, help_text="as sent: error, warn, or none")
                outcome = serializers.ChoiceField(
                    choices=CHECK_OUTCOMES,
                    help_text="passed; failed (severity error or none); warned (failed with severity warn); skipped",
                )
                actual = serializers.CharField(allow_null=True)
                expected = serializers.CharField(allow_null=True)
                description = serializers.CharField(allow_null=True)

            class MetricsSerializer(ResponseSerializer):
                class Meta:
                    ref_name = "DatasetQualityMetrics"

                class ColumnSerializer(ResponseSerializer):
                    class Meta:
                        ref_name = "DatasetQualityColumnMetrics"

                    nullCount = serializers.IntegerField(allow_null=True)
                    distinctCount = serializers.IntegerField(allow_null=True)
                    count = serializers.FloatField(allow_null=True)
                    sum = serializers.FloatField(allow_null=True)
                    min = serializers.FloatField(allow_null=True)
                    max = serializers.FloatField(allow_null=True)

                rowCount = serializers.IntegerField(allow_null=True)
                bytes = serializers.IntegerField(allow_null=True)
                fileCount = serializers.IntegerField(allow_null=True)
                lastUpdated = serializers.CharField(allow_null=True)
                columns = serializers.DictField(child=ColumnSerializer(), help_text="column name -> its metrics")

            runId = serializers.CharField()
            job = serializers.CharField()
            runState = serializers.ChoiceField(choices=RUN_STATES)
            at = serializers.CharField(help_text="the time of the latest event of the run that reported on it")
            datasetVersion = serializers.CharField(allow_null=True, help_text="the `version` facet's, when sent")
            status = QualityStatusField(help_text="what this run's checks add up to")
            checks = CheckSerializer(many=True)
            metrics = MetricsSerializer(allow_null=True, help_text="`dataQualityMetrics`, when sent")

        id = serializers.CharField(help_text="the canonical dataset id")
        status = QualityStatusField(
            help_text=f"now: the worst of each checking job's latest checks. {QUALITY_STATUS_HELP}"
        )
        count = serializers.IntegerField()
        results = ReportSerializer(many=True, help_text="one per run that checked or measured the dataset")

    @extend_schema(
        operation_id="dataset_quality", parameters=[InputSerializer], responses=responses_documented(OutputSerializer)
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return response_read(
            serializer=self.OutputSerializer,
            read=lambda: dataset_quality(node_id=data["nodeId"], limit=data["limit"], offset=data["offset"]),
        )
