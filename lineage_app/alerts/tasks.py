"""Alerts' Celery tasks: beat's check for what the clock raises (missed deadlines, stalled streams, ledger gaps
and forks)."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from lineage_app.alerts.overdue import overdue_check


@shared_task
def check_overdue() -> int:
    """Open (or resolve) the clock's incidents (beat, every 5 minutes): late jobs, stalled streams, ledger gaps
    and forks; how many it found."""
    return overdue_check(now=timezone.now())
