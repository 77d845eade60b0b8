"""Read endpoints: dataset / job lineage and run detail."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.permissions import CanRead
from lineage_app.api_errors import error_response
from lineage_app.lineage import selectors


class LineageGraphApi(APIView):
    """`GET /api/v1/lineage?nodeId=…&depth=…&direction=…&asOf=…`."""

    permission_classes = [CanRead]

    class InputSerializer(serializers.Serializer):
        nodeId = serializers.CharField()
        depth = serializers.IntegerField(min_value=0, default=2)
        direction = serializers.ChoiceField(choices=sorted(selectors.DIRECTIONS), default="both")
        asOf = serializers.DateTimeField(required=False, default=None)

        def validate_depth(self, value: int) -> int:
            if value > settings.LINEAGE_MAX_DEPTH:
                raise serializers.ValidationError(f"depth must be at most {settings.LINEAGE_MAX_DEPTH}")
            return value

    def get(self, request: Request) -> Response:
        params = self.InputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        data: dict[str, Any] = params.validated_data
        try:
            body = selectors.lineage_for_node(
                node_id=data["nodeId"], depth=data["depth"], direction=data["direction"], as_of=data["asOf"]
            )
        except selectors.NodeNotFound as exc:
            return error_response("not_found", str(exc), path="nodeId", http_status=404)
        return Response(body)


class RunDetailApi(APIView):
    """`GET /api/v1/jobs/runs/<runId>`: a run's state, times, error, facets, inputs and outputs."""

    permission_classes = [CanRead]

    def get(self, request: Request, run_id: str) -> Response:
        try:
            return Response(selectors.run_for_id(run_id=run_id))
        except selectors.NodeNotFound as exc:
            return error_response("not_found", str(exc), http_status=404)
