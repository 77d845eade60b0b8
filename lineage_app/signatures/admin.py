"""Admin for producer keys (register, rotate, retire, revoke) and per-namespace signature policies."""

from __future__ import annotations

from django.contrib import admin
from django.utils import timezone

from lineage_app.accounts.admin_roles import AdminOnlyMixin
from lineage_app.signatures.models import ProducerKey, SignaturePolicy


@admin.register(ProducerKey)
class ProducerKeyAdmin(AdminOnlyMixin, admin.ModelAdmin):
    list_display = ("producer", "key_id", "state", "active_from", "retired_at", "revoked_at", "created_at")
    list_filter = ("producer",)
    search_fields = ("producer", "key_id", "allowed_namespaces")
    fields = (
        "producer",
        "public_key",
        "key_id",
        "allowed_namespaces",
        "active_from",
        "retired_at",
        "revoked_at",
        "note",
        "created_at",
    )
    readonly_fields = ("key_id", "created_at")

    @admin.display(description="state now")
    def state(self, obj: ProducerKey) -> str:
        return obj.state_at(timezone.now())


@admin.register(SignaturePolicy)
class SignaturePolicyAdmin(AdminOnlyMixin, admin.ModelAdmin):
    list_display = ("namespace", "mode")
    list_filter = ("mode",)
    search_fields = ("namespace",)
