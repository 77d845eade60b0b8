"""Shared API plumbing: the documented error responses, query-parameter validation, pagination."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request

MAX_PAGE = 500


class ErrorSerializer(serializers.Serializer):
    error = serializers.CharField()
    message = serializers.CharField()
    path = serializers.CharField(required=False)


ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="a parameter is malformed or out of range (named in `path`)"),
    401: OpenApiResponse(ErrorSerializer, description="no credentials, or an unknown token"),
    403: OpenApiResponse(ErrorSerializer, description="the caller may not read (e.g. an ingest-only token)"),
    404: OpenApiResponse(ErrorSerializer, description="no node with that id"),
}


def query_params(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    """The request's query parameters, validated (a 400 naming the parameter otherwise)."""
    params = serializer_class(data=request.query_params)
    params.is_valid(raise_exception=True)
    return dict(params.validated_data)


class PageInput(serializers.Serializer):
    limit = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, default=50)
    offset = serializers.IntegerField(min_value=0, default=0)


def page_of(name: str, item: serializers.Serializer) -> serializers.Serializer:
    """The schema of one page of a list: `{"count", "results": [item…]}`."""
    return inline_serializer(name=name, fields={"count": serializers.IntegerField(),
                                                "results": serializers.ListSerializer(child=item)})
