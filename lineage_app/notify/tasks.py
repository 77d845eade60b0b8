"""Celery tasks: send a delivery (and schedule its next try), sweep up deliveries nobody is sending."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.db import OperationalError

from lineage_app.notify import services
from lineage_app.notify.selectors import due_delivery_ids

logger = logging.getLogger(__name__)


@shared_task(
    name=services.DELIVER_TASK,
    acks_late=True,
    autoretry_for=(OperationalError,),  # the database is busy or down: the same delivery, once it is back
    retry_backoff=2,
    max_retries=None,
)
def deliver(delivery_id: int) -> str:
    """Try one delivery; a failed try goes back to the broker for when its back-off has passed."""
    delivery = services.delivery_attempt(delivery_id=delivery_id)
    if delivery is None:
        return "not due, or another worker has it"
    services.delivery_reschedule(delivery=delivery)
    return str(delivery.state)


@shared_task
def sweep_deliveries() -> int:
    """Hand back deliveries a dead worker held, then re-enqueue every due one (the broker lost or never
    had its message). A delivery enqueued twice is still sent once: the claim decides."""
    released = services.deliveries_release_lapsed(lease_seconds=settings.NOTIFY_CLAIM_LEASE_SECONDS)
    if released:
        logger.warning("sweeper released %d delivery(ies) a worker left mid-send", released)
    ids = due_delivery_ids(overdue_seconds=settings.NOTIFY_SWEEP_GRACE_SECONDS, limit=1000)
    for delivery_id in ids:
        services.delivery_schedule(delivery_id=delivery_id)
    return len(ids)
