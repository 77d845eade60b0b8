"""Role checks for the Django admin: mixins for model admins, and the admin-only models."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from lineage_app.accounts.roles import can_administer, can_edit_ownership, can_read

# Keys, tokens and users: whatever app registers them, only admins see them in the admin.
ADMIN_ONLY_MODELS = (
    "accounts.ApiToken",
    "signatures.ProducerKey",
    "signatures.SignaturePolicy",
    "auth.User",
    "auth.Group",
)


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


def admin_only_models_restrict(site: admin.AdminSite = admin.site) -> list[str]:
    """Put `AdminOnlyMixin`'s checks on the registered admins of `ADMIN_ONLY_MODELS`; returns those found.

    Done after every app's `admin.py` has registered its models (from `AccountsConfig.ready`),
    so apps outside `accounts` need not import the mixin.
    """
    restricted = []
    for model, model_admin in list(site._registry.items()):
        label = f"{model._meta.app_label}.{model.__name__}"
        if label not in ADMIN_ONLY_MODELS or isinstance(model_admin, AdminOnlyMixin):
            continue
        model_admin.__class__ = type(f"AdminOnly{type(model_admin).__name__}",
                                     (AdminOnlyMixin, type(model_admin)), {})
        restricted.append(label)
    return restricted
