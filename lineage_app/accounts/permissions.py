"""Who may do what, named as predicates."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from lineage_app.accounts.models import ApiToken


def _token_scope(request: Request) -> str | None:
    return request.auth.scope if isinstance(request.auth, ApiToken) else None


class CanIngest(BasePermission):
    message = "this token may not ingest lineage events: it needs the 'ingest' scope"

    def has_permission(self, request: Request, view: Any) -> bool:
        return _token_scope(request) == ApiToken.Scope.INGEST


class CanRead(BasePermission):
    message = "reading the lineage API needs a logged-in user or a token with the 'read' scope"

    def has_permission(self, request: Request, view: Any) -> bool:
        scope = _token_scope(request)
        if scope is not None:
            return scope == ApiToken.Scope.READ
        return bool(request.user and request.user.is_authenticated)
