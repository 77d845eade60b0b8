"""Search endpoint: datasets, jobs, fields and runs by name, run id, tag or owner, best match first."""

from __future__ import annotations

from django.core.validators import RegexValidator
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.permissions import CanRead
from lineage_app.api_support import MAX_PAGE, QueryInput, ResponseSerializer, query_params
from lineage_app.explorer.apis.shared import response_read, responses_documented
from lineage_app.explorer.selectors.search import MATCH_KINDS, SEARCH_TYPES, node_search
from lineage_app.graph.model import ASSET_TYPES, NodeType

_TYPE = "|".join(SEARCH_TYPES)
_TYPES_PATTERN = rf"^({_TYPE})(,({_TYPE}))*$"
_TYPES_MESSAGE = f"types must be a comma-separated subset of {', '.join(SEARCH_TYPES)}"


class NodeSearchApi(APIView):
    """`GET /api/v1/search?q=&types=dataset,job,field,run&limit=`: nodes by name, run id, tag or owner, best
    match first, each saying why it matched, and whether more match than the page holds."""

    permission_classes = [CanRead]

    class InputSerializer(QueryInput):
        q = serializers.CharField(
            help_text="a name, a run id, a tag (`key`, `value` or `key:value`) or an owner; `tag:…`, `owner:…` "
            "or `run:…` searches only that"
        )
        types = serializers.CharField(
            required=False,
            default=",".join(SEARCH_TYPES),
            help_text="comma-separated: dataset, job, field, run",
            validators=[RegexValidator(_TYPES_PATTERN, message=_TYPES_MESSAGE)],
        )
        limit = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, default=50)

        def validate_types(self, value: str) -> list[str]:
            return list(dict.fromkeys(value.split(",")))

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "NodeSearch"

        class HitSerializer(ResponseSerializer):
            class Meta:
                ref_name = "NodeSearchHit"

            class MatchedSerializer(ResponseSerializer):
                class Meta:
                    ref_name = "NodeSearchMatch"

                by = serializers.ChoiceField(choices=MATCH_KINDS, help_text="what matched")
                text = serializers.CharField(help_text="the name, run id, tag (`key:value`) or owner that matched")

            id = serializers.CharField()
            type = serializers.ChoiceField(choices=[*ASSET_TYPES, NodeType.RUN.name])
            namespace = serializers.CharField(allow_blank=True, help_text="a run's: its job's")
            name = serializers.CharField(allow_blank=True, help_text="a run's: its job's name")
            matched = MatchedSerializer(help_text="why this node is a hit")
            dataset = serializers.CharField(required=False, help_text="fields only")
            description = serializers.CharField(
                required=False, allow_null=True, help_text="fields only: the current schema's description, if any"
            )
            runId = serializers.CharField(required=False, help_text="runs only")
            state = serializers.CharField(required=False, allow_null=True, help_text="runs only")
            job = serializers.CharField(required=False, allow_null=True, help_text="runs only: the run's job")
            actionCount = serializers.IntegerField(
                required=False, help_text="jobs only: how many jobs this job is the application of (0: none)"
            )
            application = serializers.CharField(
                required=False, allow_null=True, help_text="jobs only: the application job this job is an action of"
            )

        results = HitSerializer(many=True)
        more = serializers.BooleanField(
            help_text="whether at least one more node matches than `results` holds (at least `limit` + 1 in all): "
            "search stops at the tier of names that fills the page, so it does not count every match"
        )

    @extend_schema(
        operation_id="node_search", parameters=[InputSerializer], responses=responses_documented(OutputSerializer)
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return response_read(
            serializer=self.OutputSerializer,
            read=lambda: node_search(q=data["q"], types=data["types"], limit=data["limit"]),
        )
