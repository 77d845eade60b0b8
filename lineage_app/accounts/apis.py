"""Who the caller is and what it may do, so the UI can hide what it may not."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.permissions import CanRead
from lineage_app.accounts.roles import EDITOR, ROLES, roles_of
from lineage_app.api_support import ERRORS, ResponseSerializer, response_of


class MeApi(APIView):
    """`GET /api/v1/me`: `{"username", "roles", "canEditOwnership"}` for the logged-in user or a `read` token.

    An `ingest` token may only post events, so it is refused here too (a producer checks its token by posting).
    """

    permission_classes = [CanRead]

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "Me"

        username = serializers.CharField(help_text="the user's name; `token:<name>` for an API token")
        roles = serializers.ListField(
            child=serializers.ChoiceField(choices=ROLES),
            help_text="lowest first; a `read` token is a viewer",
        )
        canEditOwnership = serializers.BooleanField()

    @extend_schema(operation_id="me", responses={200: OutputSerializer, 401: ERRORS[401], 403: ERRORS[403]})
    def get(self, request: Request) -> Response:
        roles = roles_of(request.user, request.auth)
        return response_of(
            self.OutputSerializer,
            {
                "username": str(getattr(request.user, "username", request.user)),
                "roles": roles,
                "canEditOwnership": EDITOR in roles,
            },
        )
