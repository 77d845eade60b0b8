"""Admin for the event log (browse events, see why one failed or was quarantined or which facets were
left out, re-apply) and for per-namespace facet policies."""

from __future__ import annotations

import json

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html

from lineage_app.accounts.admin_roles import AdminOnlyMixin
from lineage_app.ingest.models import FacetPolicy, LineageEvent, StaleGrace
from lineage_app.ingest.services import events_reverify
from lineage_app.ingest.tasks import apply_events


class HasWarningsFilter(admin.SimpleListFilter):
    """Events stored with facets left out because they failed their schema."""

    title = "has warnings"
    parameter_name = "has_warnings"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("yes", "Yes"), ("no", "No")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[LineageEvent]) -> QuerySet[LineageEvent]:
        if self.value() in ("yes", "no"):
            return queryset.filter(facet_warnings__isnull=self.value() == "no")
        return queryset


@admin.register(LineageEvent)
class LineageEventAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "kind",
        "event_type",
        "job_namespace",
        "job_name",
        "event_time",
        "status",
        "verification",
        "attempts",
        "warning_count",
    )
    list_filter = ("status", "verification", HasWarningsFilter, "kind", "event_type")
    search_fields = ("run_id", "job_name", "job_namespace", "content_hash")
    date_hierarchy = "event_time"
    readonly_fields = [f.name for f in LineageEvent._meta.fields if f.name not in ("raw", "facet_warnings")] + [
        "warning_list",
        "pretty_payload",
    ]
    exclude = ("raw", "payload", "facet_warnings")
    actions = ("reapply", "reverify")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: LineageEvent | None = None) -> bool:
        return False

    @admin.display(description="warnings")
    def warning_count(self, obj: LineageEvent) -> int:
        return len(obj.facet_warnings or [])

    @admin.display(description="facets left out (failed their schema)")
    def warning_list(self, obj: LineageEvent) -> str:
        lines = [f"{w['path']}: {w['message']}" for w in obj.facet_warnings or []]
        return format_html("<pre>{}</pre>", "\n".join(lines)) if lines else "—"

    @admin.display(description="payload")
    def pretty_payload(self, obj: LineageEvent) -> str:
        return format_html("<pre>{}</pre>", json.dumps(obj.payload, indent=2, sort_keys=True))

    @admin.action(description="Re-apply selected events to the graph")
    def reapply(self, request: HttpRequest, queryset: QuerySet[LineageEvent]) -> None:
        ids = list(queryset.exclude(status=LineageEvent.Status.QUARANTINED).values_list("id", flat=True))
        queryset.filter(id__in=ids).update(status=LineageEvent.Status.PENDING, status_reason="")
        apply_events.delay(ids)
        self.message_user(request, f"Queued {len(ids)} event(s) for applying.")

    @admin.action(description="Re-verify and apply selected quarantined events")
    def reverify(self, request: HttpRequest, queryset: QuerySet[LineageEvent]) -> None:
        ids = list(queryset.filter(status=LineageEvent.Status.QUARANTINED).values_list("id", flat=True))
        applied = events_reverify(event_ids=ids)
        held = LineageEvent.objects.filter(id__in=ids, status=LineageEvent.Status.QUARANTINED).count()
        self.message_user(request, f"Re-verified {len(ids)} quarantined event(s): {applied} applied, {held} still held")


@admin.register(FacetPolicy)
class FacetPolicyAdmin(AdminOnlyMixin, admin.ModelAdmin):
    list_display = ("namespace", "mode")
    list_filter = ("mode",)
    search_fields = ("namespace",)


@admin.register(StaleGrace)
class StaleGraceAdmin(AdminOnlyMixin, admin.ModelAdmin):
    list_display = ("namespace", "after_runs", "after_days")
    search_fields = ("namespace",)
