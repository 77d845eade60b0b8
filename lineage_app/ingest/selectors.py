"""Ingestion reads: which logged events still wait to be applied, and what the log holds for a run."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.utils import timezone

from lineage_app.graph.events import utc_text
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import APPLYABLE


def applyable_event_ids(*, event_ids: Sequence[int]) -> list[int]:
    """Those of `event_ids` still waiting to be applied (pending, or failed and sent again)."""
    return list(LineageEvent.objects.filter(id__in=event_ids, status__in=APPLYABLE).values_list("id", flat=True))


def pending_event_ids(*, older_than_seconds: int, limit: int) -> list[int]:
    """Pending events received more than `older_than_seconds` ago, oldest event time first."""
    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    return list(
        LineageEvent.objects.filter(status=LineageEvent.Status.PENDING, received_at__lte=cutoff)
        .order_by("event_time", "id")
        .values_list("id", flat=True)[:limit]
    )


def run_events(*, run_id: str) -> list[dict[str, Any]]:
    """Every logged event of a run, quarantined ones included, in eventTime order."""
    rows = (
        LineageEvent.objects.filter(run_id=run_id.lower())
        .order_by("event_time", "id")
        .values("id", "event_type", "event_time", "verification", "status")
    )
    return [
        {
            "id": row["id"],
            "eventType": row["event_type"],
            "eventTime": utc_text(row["event_time"]),
            "verification": row["verification"] or None,
            "status": row["status"],
        }
        for row in rows
    ]


def run_verification_statuses(*, run_ids: Sequence[str]) -> dict[str, list[str]]:
    """The signature status of every logged event of each run (one query for many runs)."""
    statuses: dict[str, list[str]] = defaultdict(list)
    for run_id, status in LineageEvent.objects.filter(run_id__in=list(run_ids)).values_list("run_id", "verification"):
        statuses[run_id].append(status or "")
    return statuses
