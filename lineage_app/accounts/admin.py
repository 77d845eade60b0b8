"""Admin for API tokens (create one and see its secret once; revoke), the admin-only user pages and sign-in lockouts."""

from __future__ import annotations

from typing import Any

# Imported for its registrations, which are replaced below by admin-only ones.
from axes.admin import AccessAttemptAdmin, AccessFailureLogAdmin, AccessLogAdmin
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib import admin, messages
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.db.models import QuerySet
from django.http import HttpRequest

from lineage_app.accounts.admin_roles import AdminOnlyMixin
from lineage_app.accounts.models import ApiToken
from lineage_app.accounts.services import token_create, tokens_revoke


@admin.register(ApiToken)
class ApiTokenAdmin(AdminOnlyMixin, admin.ModelAdmin):
    list_display = ("name", "scope", "rate_limit", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("scope",)
    search_fields = ("name", "prefix")
    fields = ("name", "scope", "rate_limit", "prefix", "created_by", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("prefix", "created_by", "created_at", "last_used_at")
    actions = ("revoke",)

    def save_model(self, request: HttpRequest, obj: ApiToken, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        # The admin site lets no anonymous user this far.
        assert isinstance(request.user, User)
        token, plaintext = token_create(
            name=obj.name, scope=obj.scope, rate_limit=obj.rate_limit, created_by=request.user
        )
        obj.pk = token.pk
        obj.refresh_from_db()
        messages.warning(request, f"New token (copy it now, it is not shown again): {plaintext}")

    @admin.action(description="Revoke selected tokens")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        count = tokens_revoke(tokens=queryset)
        self.message_user(request, f"Revoked {count} token(s).")


# Users and groups are the admin role's alone: replace Django's registrations with admin-only ones.
admin.site.unregister(User)
admin.site.unregister(Group)


@admin.register(User)
class AdminOnlyUserAdmin(AdminOnlyMixin, UserAdmin):
    pass


@admin.register(Group)
class AdminOnlyGroupAdmin(AdminOnlyMixin, GroupAdmin):
    pass


# Sign-in lockouts (django-axes): deleting a failed-attempt record (an `AccessAttempt`) unlocks its username
# and address. Like users, they are the admin role's alone.
for model in (AccessAttempt, AccessLog, AccessFailureLog):
    admin.site.unregister(model)


@admin.register(AccessAttempt)
class AdminOnlyAccessAttemptAdmin(AdminOnlyMixin, AccessAttemptAdmin):
    pass


@admin.register(AccessLog)
class AdminOnlyAccessLogAdmin(AdminOnlyMixin, AccessLogAdmin):
    pass


@admin.register(AccessFailureLog)
class AdminOnlyAccessFailureLogAdmin(AdminOnlyMixin, AccessFailureLogAdmin):
    pass
