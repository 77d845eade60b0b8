"""Who may do what, named as predicates."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from lineage_app.accounts.models import ApiToken
from lineage_app.accounts.roles import can_administer, can_edit_ownership


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
            return scope in (ApiToken.Scope.READ, ApiToken.Scope.ADMIN)
        return bool(request.user and request.user.is_authenticated)


class CanWitness(BasePermission):
    """Witnesses read checkpoints and consistency proofs (hashes only) and send what they sign: a token of any
    scope will do, since the edge relay holds an ingest token; what a witness sends proves itself by its key."""

    message = "witnessing the log needs a logged-in user or an API token (any scope)"

    def has_permission(self, request: Request, view: Any) -> bool:
        if _token_scope(request) is not None:
            return True
        return bool(request.user and request.user.is_authenticated)


class CanEditOwnership(BasePermission):
    message = "managing ownership needs the 'editor' role (API tokens can only read)"

    def has_permission(self, request: Request, view: Any) -> bool:
        return can_edit_ownership(request.user, request.auth)


class ReadsOrEditsOwnership(BasePermission):
    """Safe methods for readers (`CanRead`), every other method for editors (`CanEditOwnership`)."""

    message = CanEditOwnership.message

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return CanRead().has_permission(request, view)
        return CanEditOwnership().has_permission(request, view)


class CanAdminister(BasePermission):
    message = "this needs an admin: a signed-in user with the 'admin' role or a token with the 'admin' scope"

    def has_permission(self, request: Request, view: Any) -> bool:
        return can_administer(request.user, request.auth)


class ReadsOrAdministers(BasePermission):
    """Safe methods for readers (`CanRead`), every other method for admins (`CanAdminister`)."""

    message = CanAdminister.message

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return CanRead().has_permission(request, view)
        return CanAdminister().has_permission(request, view)


class CanHandleIncidents(BasePermission):
    message = "acknowledging or resolving an incident needs a signed-in user or a token with the 'admin' scope"

    def has_permission(self, request: Request, view: Any) -> bool:
        scope = _token_scope(request)
        if scope is not None:
            return scope == ApiToken.Scope.ADMIN
        return bool(request.user and request.user.is_authenticated)


class IsSignedInUser(BasePermission):
    message = "this is about the signed-in user's own settings: sign in (API tokens have no user)"

    def has_permission(self, request: Request, view: Any) -> bool:
        return _token_scope(request) is None and bool(request.user and request.user.is_authenticated)
