"""Namespace endpoint: every namespace with its dataset and job counts."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.permissions import CanRead
from lineage_app.api_support import PageInput, ResponseSerializer, page_of, query_params
from lineage_app.explorer.apis.shared import response_read, responses_documented
from lineage_app.explorer.selectors.namespaces import namespace_list


class NamespaceListApi(APIView):
    """`GET /api/v1/namespaces`: every namespace with its dataset and job counts, by name."""

    permission_classes = [CanRead]

    class InputSerializer(PageInput):
        pass

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "NamespaceList"

        name = serializers.CharField()
        datasetCount = serializers.IntegerField()
        jobCount = serializers.IntegerField()

    PageSerializer = page_of("NamespacePage", OutputSerializer())

    @extend_schema(
        operation_id="namespace_list", parameters=[InputSerializer], responses=responses_documented(PageSerializer)
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return response_read(
            serializer=self.PageSerializer,
            read=lambda: namespace_list(limit=data["limit"], offset=data["offset"]),
        )
