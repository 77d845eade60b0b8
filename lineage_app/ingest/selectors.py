"""Ingestion reads: which logged events still wait to be applied."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from lineage_app.ingest.models import LineageEvent


def pending_event_ids(*, older_than_seconds: int, limit: int) -> list[int]:
    """Pending events received more than `older_than_seconds` ago, oldest event time first."""
    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    return list(
        LineageEvent.objects.filter(status=LineageEvent.Status.PENDING, received_at__lte=cutoff)
        .order_by("event_time", "id")
        .values_list("id", flat=True)[:limit]
    )
