"""Ownership endpoints: owners, effective owners of a node, and hand-set assignments (editors only)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.permissions import CanEditOwnership, CanRead, ReadsOrEditsOwnership
from lineage_app.api_errors import error_response
from lineage_app.api_support import ERRORS, PageInput, ResponseSerializer, page_of, query_params, response_of
from lineage_app.graph.node_ids import NodeNotFound
from lineage_app.ownership import selectors, services
from lineage_app.ownership.models import Owner, OwnershipAssignment

if TYPE_CHECKING:  # the type DRF's stubs give a permission instance; not in DRF at run time
    from rest_framework.permissions import _SupportsHasPermission


class OwnerOutput(ResponseSerializer):
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=Owner.Kind.values)
    email = serializers.CharField(allow_blank=True)
    channel = serializers.CharField(allow_blank=True)
    assignmentCount = serializers.IntegerField()


class OwnerListApi(APIView):
    """`GET /api/v1/owners`: people and teams by name, with how many assignments each has."""

    permission_classes = [CanRead]

    class InputSerializer(PageInput):
        q = serializers.CharField(required=False, default=None, help_text="case-insensitive substring of the name")

    PageSerializer = page_of("OwnerPage", OwnerOutput())

    @extend_schema(operation_id="owner_list", parameters=[InputSerializer], responses={200: PageSerializer, **ERRORS})
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return response_of(
            self.PageSerializer, selectors.owner_page(q=data["q"], limit=data["limit"], offset=data["offset"])
        )


class EffectiveOwnerOutput(ResponseSerializer):
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=Owner.Kind.values)
    contact = serializers.CharField(allow_blank=True, help_text="email or channel; empty when neither is known")
    role = serializers.CharField(help_text="a hand-set role, or an ownership facet's owner `type` (e.g. `MAINTAINER`)")
    source = serializers.ChoiceField(choices=OwnershipAssignment.Source.values)  # type: ignore[assignment]  # the API's `source` shadows DRF's
    inherited = serializers.BooleanField(help_text="the namespace's owner: the node has none of its own")


class AssignmentOutput(ResponseSerializer):
    id = serializers.IntegerField()
    owner = serializers.CharField()
    kind = serializers.ChoiceField(choices=Owner.Kind.values)
    email = serializers.CharField(allow_blank=True)
    channel = serializers.CharField(allow_blank=True)
    targetType = serializers.ChoiceField(choices=OwnershipAssignment.TargetType.values)
    namespace = serializers.CharField()
    name = serializers.CharField(allow_blank=True, help_text="empty for a namespace")
    role = serializers.CharField(help_text="a hand-set role, or an ownership facet's owner `type` (e.g. `MAINTAINER`)")
    source = serializers.ChoiceField(choices=OwnershipAssignment.Source.values)  # type: ignore[assignment]  # the API's `source` shadows DRF's


class AssignmentInput(serializers.Serializer):
    owner = serializers.CharField(max_length=200)
    targetType = serializers.ChoiceField(choices=OwnershipAssignment.TargetType.values)
    namespace = serializers.CharField(max_length=500)
    name = serializers.CharField(max_length=1000, required=False, allow_blank=True, default="")
    role = serializers.ChoiceField(choices=OwnershipAssignment.Role.values)
    kind = serializers.ChoiceField(choices=Owner.Kind.values, required=False, default="")
    email = serializers.EmailField(required=False, allow_blank=True, default="")
    channel = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


class OwnershipListInput(PageInput):
    nodeId = serializers.CharField(
        required=False,
        default=None,
        help_text="`dataset:<ns>:<name>`, `job:<ns>:<name>` or `namespace:<ns>`: its effective owners; "
        "without it, the stored assignments",
    )
    namespace = serializers.CharField(required=False, default=None)
    source = serializers.ChoiceField(  # type: ignore[assignment]  # the API's `source` shadows DRF's
        choices=OwnershipAssignment.Source.values, required=False, default=None
    )


class EffectiveOwnerListApi(APIView):
    """`GET /api/v1/ownership?nodeId=…`: the effective owners of a dataset, job or namespace, all of them."""

    permission_classes = [CanRead]

    class InputSerializer(OwnershipListInput):
        # The parameters `AssignmentListApi` takes, checked in the same order; `nodeId` must be given.
        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            if attrs["nodeId"] is None:
                raise serializers.ValidationError({"nodeId": ["this field is required"]})
            return attrs

    PageSerializer = page_of(
        "EffectiveOwnerPage", EffectiveOwnerOutput(), nodeId=serializers.CharField(help_text="as asked")
    )

    def get(self, request: Request) -> Response:
        data = query_params(EffectiveOwnerListApi.InputSerializer, request)
        try:
            owners = selectors.ownership_for_node(node_id=data["nodeId"])
        except NodeNotFound as exc:
            return error_response("not_found", str(exc), path="nodeId", http_status=404)
        return response_of(EffectiveOwnerListApi.PageSerializer, owners)


class AssignmentListApi(APIView):
    """`GET /api/v1/ownership?namespace=&source=`: stored assignments, hand-set and event-sourced, a page at a time."""

    permission_classes = [CanRead]
    InputSerializer = OwnershipListInput
    PageSerializer = page_of("AssignmentPage", AssignmentOutput())

    def get(self, request: Request) -> Response:
        data = query_params(AssignmentListApi.InputSerializer, request)
        page = selectors.assignment_page(
            namespace=data["namespace"], source=data["source"], limit=data["limit"], offset=data["offset"]
        )
        return response_of(AssignmentListApi.PageSerializer, page)


class AssignmentCreateApi(APIView):
    """`POST /api/v1/ownership`: a hand-set assignment (201, or 200 when it exists already); editors only."""

    permission_classes = [CanEditOwnership]

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
        return response_of(AssignmentOutput, selectors.assignment_row(assignment), status=201 if created else 200)


class AssignmentDeleteApi(APIView):
    """`DELETE /api/v1/ownership`: a hand-set assignment, named by body or query (204; 404 when none); editors only."""

    permission_classes = [CanEditOwnership]

    @extend_schema(operation_id="ownership_delete", request=AssignmentInput, responses={204: None, **ERRORS})
    def delete(self, request: Request) -> Response:
        data = _valid(request.data or request.query_params)
        deleted = services.assignment_delete_manual(
            owner=data["owner"],
            target_type=data["target_type"],
            namespace=data["namespace"],
            name=data["name"],
            role=data["role"],
        )
        if not deleted:
            return error_response("not_found", "no such hand-set assignment", http_status=404)
        return Response(status=204)


class OwnershipApi(EffectiveOwnerListApi, AssignmentListApi, AssignmentCreateApi, AssignmentDeleteApi):
    """`/api/v1/ownership`: GET effective owners of `nodeId` (or stored assignments); POST / DELETE hand-set ones."""

    # One URL, one class per operation (GET is two, told apart by `nodeId`; both only read). Each
    # method's permissions are its class's; `ReadsOrEditsOwnership`, the same split, for the others.
    permission_classes = [ReadsOrEditsOwnership]
    served_by: dict[str, type[APIView]] = {
        "GET": AssignmentListApi,
        "GET nodeId": EffectiveOwnerListApi,
        "POST": AssignmentCreateApi,
        "DELETE": AssignmentDeleteApi,
    }

    def get_permissions(self) -> list[_SupportsHasPermission]:
        served_by = self.served_by.get(self.request.method or "")
        return [permission() for permission in (served_by or self).permission_classes]

    @extend_schema(
        operation_id="ownership_list",
        parameters=[OwnershipListInput],
        responses={
            200: OpenApiResponse(
                PolymorphicProxySerializer(
                    component_name="OwnershipPage",
                    serializers=[EffectiveOwnerListApi.PageSerializer, AssignmentListApi.PageSerializer],
                    resource_type_field_name=None,
                ),
                description="with `nodeId`: its effective owners (EffectiveOwnerPage, all of them, unpaged); "
                "without: stored assignments (AssignmentPage)",
            ),
            **ERRORS,
        },
    )
    def get(self, request: Request) -> Response:
        asked = query_params(OwnershipListInput, request)  # a bad parameter is a 400 whichever answers
        read = EffectiveOwnerListApi if asked["nodeId"] is not None else AssignmentListApi
        return read.get(self, request)


_API_NAMES = {"target_type": "targetType"}


def _valid(raw: Any) -> dict[str, Any]:
    body = AssignmentInput(data=raw)
    body.is_valid(raise_exception=True)
    data = dict(body.validated_data)
    data["target_type"] = data.pop("targetType")
    return data
