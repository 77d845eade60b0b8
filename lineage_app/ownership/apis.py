"""Ownership endpoints: owners, effective owners of a node, and hand-set assignments (editors only)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.permissions import CanRead, ReadsOrEditsOwnership
from lineage_app.api_errors import error_response
from lineage_app.api_support import ERRORS, PageInput, page_of, query_params
from lineage_app.graph.node_ids import NodeNotFound
from lineage_app.ownership import selectors, services
from lineage_app.ownership.models import Owner, OwnershipAssignment


class OwnerOutput(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.CharField()
    email = serializers.CharField()
    channel = serializers.CharField()
    assignmentCount = serializers.IntegerField()


class OwnerListApi(APIView):
    """`GET /api/v1/owners`: people and teams by name, with how many assignments each has."""

    permission_classes = [CanRead]

    class InputSerializer(PageInput):
        q = serializers.CharField(required=False, default=None, help_text="case-insensitive substring of the name")

    @extend_schema(
        operation_id="owner_list",
        parameters=[InputSerializer],
        responses={200: page_of("OwnerPage", OwnerOutput()), **ERRORS},
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return Response(selectors.owner_page(q=data["q"], limit=data["limit"], offset=data["offset"]))


class EffectiveOwnerOutput(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.CharField()
    contact = serializers.CharField()
    role = serializers.CharField()
    source = serializers.ChoiceField(choices=["manual", "event"])
    inherited = serializers.BooleanField()


class AssignmentOutput(serializers.Serializer):
    id = serializers.IntegerField()
    owner = serializers.CharField()
    kind = serializers.CharField()
    email = serializers.CharField()
    channel = serializers.CharField()
    targetType = serializers.CharField()
    namespace = serializers.CharField()
    name = serializers.CharField()
    role = serializers.CharField()
    source = serializers.CharField()


class AssignmentInput(serializers.Serializer):
    owner = serializers.CharField(max_length=200)
    targetType = serializers.ChoiceField(choices=OwnershipAssignment.TargetType.values)
    namespace = serializers.CharField(max_length=500)
    name = serializers.CharField(max_length=1000, required=False, allow_blank=True, default="")
    role = serializers.ChoiceField(choices=OwnershipAssignment.Role.values)
    kind = serializers.ChoiceField(choices=Owner.Kind.values, required=False, default="")
    email = serializers.EmailField(required=False, allow_blank=True, default="")
    channel = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


class OwnershipApi(APIView):
    """`/api/v1/ownership`: GET effective owners of `nodeId` (or stored assignments); POST / DELETE hand-set ones."""

    permission_classes = [ReadsOrEditsOwnership]

    class InputSerializer(PageInput):
        nodeId = serializers.CharField(
            required=False,
            default=None,
            help_text="`dataset:<ns>:<name>`, `job:<ns>:<name>` or `namespace:<ns>`: its effective owners; "
            "without it, the stored assignments",
        )
        namespace = serializers.CharField(required=False, default=None)
        source = serializers.ChoiceField(choices=OwnershipAssignment.Source.values, required=False, default=None)

    @extend_schema(
        operation_id="ownership_list",
        parameters=[InputSerializer],
        responses={
            200: OpenApiResponse(
                inline_serializer(
                    name="OwnershipPage",
                    fields={
                        "count": serializers.IntegerField(),
                        "results": serializers.ListSerializer(
                            child=PolymorphicProxySerializer(
                                component_name="OwnershipRow",
                                serializers=[EffectiveOwnerOutput, AssignmentOutput],
                                resource_type_field_name=None,
                            )
                        ),
                    },
                ),
                description="with `nodeId`: its effective owners; without: stored assignments (AssignmentOutput)",
            ),
            **ERRORS,
        },
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        if data["nodeId"]:
            try:
                return Response(selectors.ownership_for_node(node_id=data["nodeId"]))
            except NodeNotFound as exc:
                return error_response("not_found", str(exc), path="nodeId", http_status=404)
        return Response(
            selectors.assignment_page(
                namespace=data["namespace"], source=data["source"], limit=data["limit"], offset=data["offset"]
            )
        )

    @extend_schema(
        operation_id="ownership_create",
        request=AssignmentInput,
        responses={201: AssignmentOutput, 200: AssignmentOutput, **ERRORS},
    )
    def post(self, request: Request) -> Response:
        data = _valid(request.data)
        try:
            assignment, created = services.assignment_create(**data)
        except services.OwnershipInvalid as exc:
            first = exc.problems[0]
            return error_response(
                "invalid",
                f"{first.column} {first.problem}",
                path=_API_NAMES.get(first.column, first.column),
                http_status=400,
            )
        return Response(selectors.assignment_row(assignment), status=201 if created else 200)

    @extend_schema(operation_id="ownership_delete", request=AssignmentInput, responses={204: None, **ERRORS})
    def delete(self, request: Request) -> Response:
        data = _valid(request.data or request.query_params)
        found = OwnershipAssignment.objects.filter(
            owner__name=data["owner"],
            target_type=data["target_type"],
            namespace=data["namespace"],
            name=data["name"],
            role=data["role"],
            source=OwnershipAssignment.Source.MANUAL,
        )
        if not found.exists():
            return error_response("not_found", "no such hand-set assignment", http_status=404)
        services.assignments_delete(assignments=found)
        return Response(status=204)


_API_NAMES = {"target_type": "targetType"}


def _valid(raw: Any) -> dict[str, Any]:
    body = AssignmentInput(data=raw)
    body.is_valid(raise_exception=True)
    data = dict(body.validated_data)
    data["target_type"] = data.pop("targetType")
    return data
