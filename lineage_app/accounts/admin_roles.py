"""Role checks for the Django admin: mixins for model admins, and the admin-only models."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from lineage_app.accounts.roles import can_administer, can_edit_ownership, can_read


class AdminOnlyMixin:
    """Every permission of this model admin needs the `admin` role."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return can_administer(request.user)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can_administer(request.user)

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        return can_administer(request.user)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can_administer(request.user)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can_administer(request.user)


class EditorMixin:
    """Viewers (staff with any role) may look; editors may add, change and delete."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return can_read(request.user)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can_read(request.user)

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        return can_edit_ownership(request.user)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can_edit_ownership(request.user)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can_edit_ownership(request.user)
