"""Admin for the transparency log: its signing keys (revoke a compromised one), witnesses and their alarms."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from lineage_app.accounts.admin_roles import AdminOnlyMixin
from lineage_app.ledger.models import LogKey, WitnessAlarm, WitnessKey


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


@admin.register(WitnessKey)
class WitnessKeyAdmin(AdminOnlyMixin, admin.ModelAdmin):
    """Register a witness by pasting the verifier key it prints; revoke it to stop hearing it."""

    list_display = ("name", "key_hash", "created_at", "revoked_at")
    fields = ("verifier_key", "name", "key_hash", "note", "created_at", "revoked_at")
    readonly_fields = ("name", "key_hash", "created_at")


@admin.register(WitnessAlarm)
class WitnessAlarmAdmin(AdminOnlyMixin, admin.ModelAdmin):
    """A witness's refusal, kept as evidence: an admin resolves it once it is explained, and nothing else."""

    list_display = ("witness", "kind", "cosigned_size", "offered_size", "last_reported_at", "reports", "resolved_at")
    list_filter = ("kind",)
    fields = (
        "witness",
        "kind",
        "reason",
        "cosigned_size",
        "cosigned_root",
        "offered_size",
        "offered_root",
        "report",
        "offered",
        "first_reported_at",
        "last_reported_at",
        "reports",
        "resolved_at",
    )
    readonly_fields = fields[:-1]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
