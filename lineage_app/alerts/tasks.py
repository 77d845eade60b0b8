"""Alerts' Celery tasks: beat's check for jobs that missed the deadline their cadence sets."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from lineage_app.alerts.services import deadlines_check


@shared_task
def check_deadlines() -> int:
    """Open an incident for each job late against its learned cadence (beat, every 5 minutes); how many are late."""
    return deadlines_check(now=timezone.now())
