"""Who the caller is and what it may do, so the UI can hide what it may not."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.roles import EDITOR, roles_of


class MeApi(APIView):
    """`GET /api/v1/me`: `{"username", "roles", "canEditOwnership"}` for the logged-in user or token."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me",
        responses=inline_serializer(
            name="Me",
            fields={
                "username": serializers.CharField(),
                "roles": serializers.ListSerializer(child=serializers.CharField()),
                "canEditOwnership": serializers.BooleanField(),
            },
        ),
    )
    def get(self, request: Request) -> Response:
        roles = roles_of(request.user, request.auth)
        return Response(
            {
                "username": str(getattr(request.user, "username", request.user)),
                "roles": roles,
                "canEditOwnership": EDITOR in roles,
            }
        )
