"""Dataset endpoints: the list, one dataset's detail, why two datasets are not connected, and schema diffs."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.permissions import CanRead
from lineage_app.api_support import (
    RUN_STATES,
    FieldRenameSerializer,
    QueryInput,
    ResponseSerializer,
    page_of,
    query_params,
)
from lineage_app.explorer.apis.shared import ListFilterInput, NodeInput, response_read, responses_documented
from lineage_app.explorer.selectors.datasets import dataset_detail, dataset_list, dataset_version_diff
from lineage_app.explorer.selectors.near_miss import NEAR_MISS_LIMIT, dataset_near_miss
from lineage_app.ownership.models import Owner, OwnershipAssignment


class NameTypeSerializer(ResponseSerializer):
    name = serializers.CharField()
    type = serializers.CharField()


class DatasetListApi(APIView):
    """`GET /api/v1/datasets?namespace=&q=`: datasets by namespace and name."""

    permission_classes = [CanRead]

    class InputSerializer(ListFilterInput):
        pass

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "DatasetList"

        id = serializers.CharField()
        namespace = serializers.CharField()
        name = serializers.CharField()
        fieldCount = serializers.IntegerField()
        currentVersion = serializers.CharField(allow_null=True)
        lastSeen = serializers.CharField(allow_null=True)
        lastRunState = serializers.ChoiceField(choices=RUN_STATES, allow_null=True)

    PageSerializer = page_of("DatasetPage", OutputSerializer())

    @extend_schema(
        operation_id="dataset_list", parameters=[InputSerializer], responses=responses_documented(PageSerializer)
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return response_read(
            serializer=self.PageSerializer,
            read=lambda: dataset_list(
                namespace=data["namespace"], q=data["q"], limit=data["limit"], offset=data["offset"]
            ),
        )


class FormerJobSerializer(ResponseSerializer):
    """A job that used to read (or write) the dataset: its edge to it is stale."""

    id = serializers.CharField(help_text="the job's id")
    lastSeen = serializers.CharField(allow_null=True, help_text="the latest event that named the edge")
    staleSince = serializers.CharField(help_text="the end of the completed run that left it out")


class DatasetDetailApi(APIView):
    """`GET /api/v1/datasets/detail?nodeId=dataset:…`: one dataset, its schema history, owners and runs."""

    permission_classes = [CanRead]

    class InputSerializer(NodeInput):
        pass

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "DatasetDetail"

        class FieldSerializer(ResponseSerializer):
            class Meta:
                ref_name = "DatasetDetailField"

            id = serializers.CharField()
            name = serializers.CharField()
            type = serializers.CharField(
                allow_null=True, help_text="the newest type its schema versions sent; empty where none knew it"
            )
            description = serializers.CharField(
                allow_null=True, help_text="the newest description its schema versions sent (a `schema` field's)"
            )
            current = serializers.BooleanField()

        class VersionSerializer(ResponseSerializer):
            class Meta:
                ref_name = "DatasetDetailVersion"

            version = serializers.CharField()
            firstSeen = serializers.CharField()
            lastSeen = serializers.CharField()
            createdByRun = serializers.CharField(allow_null=True)
            fields = NameTypeSerializer(many=True)  # type: ignore[assignment]  # the API's `fields` shadows DRF's

        class OwnerSerializer(ResponseSerializer):
            class Meta:
                ref_name = "DatasetDetailOwner"

            name = serializers.CharField()
            kind = serializers.ChoiceField(choices=Owner.Kind.values)
            role = serializers.CharField(help_text="a hand-set role, or an ownership facet's owner `type`")
            source = serializers.ChoiceField(  # type: ignore[assignment]  # the API's `source` shadows DRF's
                choices=OwnershipAssignment.Source.values
            )

        class LastRunSerializer(ResponseSerializer):
            class Meta:
                ref_name = "DatasetDetailLastRun"

            runId = serializers.CharField()
            job = serializers.CharField()
            state = serializers.ChoiceField(choices=RUN_STATES)
            startedAt = serializers.CharField(allow_null=True)
            endedAt = serializers.CharField(allow_null=True)
            subset = serializers.CharField(
                allow_null=True,
                help_text="the part of the dataset it wrote, when its `subset` facet said (a partition: "
                "`date=2026-11-24`); null: the run wrote the dataset as a whole",
            )

        class WriteStatisticsSerializer(ResponseSerializer):
            class Meta:
                ref_name = "DatasetWriteStatistics"

            runId = serializers.CharField()
            state = serializers.ChoiceField(choices=RUN_STATES)
            at = serializers.CharField(allow_null=True, help_text="when the run ended (or started, if it has not)")
            rowCount = serializers.IntegerField(allow_null=True)
            bytes = serializers.IntegerField(allow_null=True, help_text="the facet's `size`")
            fileCount = serializers.IntegerField(allow_null=True)

        id = serializers.CharField()
        namespace = serializers.CharField()
        name = serializers.CharField()
        facets = serializers.DictField()
        currentVersion = serializers.CharField(allow_null=True)
        fields = FieldSerializer(many=True)  # type: ignore[assignment]  # the API's `fields` shadows DRF's
        versions = VersionSerializer(many=True, help_text="oldest first; each with its fields (name, type)")
        owners = OwnerSerializer(many=True)
        producers = serializers.ListField(child=serializers.CharField(), help_text="jobs that write it now")
        consumers = serializers.ListField(child=serializers.CharField(), help_text="jobs that read it now")
        inferredConsumers = serializers.ListField(
            child=serializers.CharField(),
            help_text="those of `consumers` whose input of it is only inferred from column lineage (docs/dbt.md)",
        )
        formerProducers = FormerJobSerializer(
            many=True, help_text="jobs whose latest completed runs no longer write it (docs/time.md)"
        )
        formerConsumers = FormerJobSerializer(
            many=True, help_text="jobs whose latest completed runs no longer read it (docs/time.md)"
        )

        class AliasSerializer(ResponseSerializer):
            class Meta:
                ref_name = "DatasetDetailAlias"

            class SourceSerializer(ResponseSerializer):
                class Meta:
                    ref_name = "DatasetDetailAliasSource"

                kind = serializers.ChoiceField(
                    choices=["dataset", "symlink", "catalog"],
                    help_text="named as a dataset, as a `symlinks` identifier, or declared by the `hierarchy` "
                    "(and `catalog`) facets: the table's name in its catalog",
                )
                type = serializers.CharField(
                    allow_null=True,
                    help_text="the symlink identifier's type, e.g. TABLE; a declared name's innermost hierarchy level",
                )
                job = serializers.CharField(allow_null=True)
                producer = serializers.CharField(allow_null=True)
                event = serializers.CharField(help_text="content hash of the earliest event that named it so")
                firstSeen = serializers.CharField()

            namespace = serializers.CharField()
            name = serializers.CharField()
            source = SourceSerializer(help_text="who named the dataset so first")  # type: ignore[assignment]  # the API's `source` shadows DRF's

        lastRuns = LastRunSerializer(many=True, help_text="the runs that wrote the dataset, newest first, at most 10")
        writeStatistics = WriteStatisticsSerializer(
            many=True,
            help_text="what each of the latest 50 runs that sent `outputStatistics` for it wrote, oldest first",
        )
        aliases = AliasSerializer(many=True, help_text="other names of this dataset (docs/identity.md)")

    @extend_schema(
        operation_id="dataset_detail", parameters=[InputSerializer], responses=responses_documented(OutputSerializer)
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return response_read(serializer=self.OutputSerializer, read=lambda: dataset_detail(node_id=data["nodeId"]))


class DatasetNearMissApi(APIView):
    """`GET /api/v1/datasets/near-miss?a=dataset:…&b=dataset:…`: why two datasets are not connected."""

    permission_classes = [CanRead]

    class InputSerializer(QueryInput):
        a = serializers.CharField(help_text="a dataset id, `dataset:<namespace>:<name>` (an alias resolves)")
        b = serializers.CharField(help_text="another dataset id")

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "DatasetNearMiss"

        class MissSerializer(ResponseSerializer):
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
            via = serializers.ListField(child=serializers.CharField(), help_text="the job and dataset in between")
            message = serializers.CharField()

        a = serializers.CharField(help_text="the canonical id of `a`")
        b = serializers.CharField(help_text="the canonical id of `b`")
        connected = serializers.BooleanField()
        pathLength = serializers.IntegerField(allow_null=True, help_text="edges on the shortest lineage path")
        direction = serializers.CharField(allow_null=True, help_text="`a to b`, `b to a` or `same dataset`")
        nearMisses = MissSerializer(many=True, help_text=f"at most {NEAR_MISS_LIMIT}, when not connected")

    @extend_schema(
        operation_id="dataset_near_miss",
        parameters=[InputSerializer],
        responses=responses_documented(OutputSerializer),
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return response_read(serializer=self.OutputSerializer, read=lambda: dataset_near_miss(a=data["a"], b=data["b"]))


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

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "DatasetVersionDiff"

        class ChangedSerializer(ResponseSerializer):
            class Meta:
                ref_name = "DatasetVersionDiffChanged"

            name = serializers.CharField()
            fromType = serializers.CharField()
            toType = serializers.CharField()

        to = serializers.CharField()
        added = NameTypeSerializer(many=True)
        removed = NameTypeSerializer(many=True)
        changed = ChangedSerializer(many=True)
        renamed = FieldRenameSerializer(many=True, help_text="removed and added fields read as renames")
        downstream = serializers.ListField(
            child=serializers.CharField(), help_text="dataset ids downstream, depth ≤ LINEAGE_MAX_DEPTH"
        )
        truncated = serializers.BooleanField()

        def get_fields(self) -> dict[str, serializers.Field]:
            return {"from": serializers.CharField(), **super().get_fields()}

    @extend_schema(
        operation_id="dataset_version_diff",
        parameters=[InputSerializer],
        responses=responses_documented(OutputSerializer),
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return response_read(
            serializer=self.OutputSerializer,
            read=lambda: dataset_version_diff(node_id=data["nodeId"], from_version=data["from"], to_version=data["to"]),
        )
