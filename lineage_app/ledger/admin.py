"""Admin for the transparency log's signing keys: see which keys signed, revoke a compromised one."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from lineage_app.accounts.admin_roles import AdminOnlyMixin
from lineage_app.ledger.models import LogKey


@admin.register(LogKey)
class LogKeyAdmin(AdminOnlyMixin, admin.ModelAdmin):
    list_display = ("key_id", "name", "first_used", "revoked_at")
    fields = ("key_id", "name", "verifier_key", "public_key", "first_used", "revoked_at")
    # A key is recorded by the checkpoint it first signs; only its revocation is an admin's to set.
    readonly_fields = ("key_id", "name", "verifier_key", "public_key", "first_used")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
