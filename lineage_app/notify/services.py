"""Writes of the notify app: destinations, enqueueing a message to the outbox, and delivering it once."""

from __future__ import annotations

import logging

from django.db import IntegrityError, transaction
from django.utils import timezone

from lineage_app.celery import app as celery_app
from lineage_app.notify.messages import Message
from lineage_app.notify.models import Delivery, Destination

logger = logging.getLogger(__name__)

# The registered name of `lineage_app.notify.tasks.deliver`: sent by name, so services need not import tasks.
DELIVER_TASK = "lineage_app.notify.tasks.deliver"


def enqueue(*, destination: Destination, message: Message, idempotency_key: str) -> Delivery:
    """Write `message` to the outbox for `destination`, in the caller's transaction; a worker sends it
    once that transaction commits. A second enqueue with the same key and destination returns the first row."""
    existing = Delivery.objects.filter(destination=destination, idempotency_key=idempotency_key).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():  # a savepoint: a lost race leaves the caller's transaction usable
            delivery = Delivery.objects.create(
                destination=destination,
                idempotency_key=idempotency_key,
                message=message.to_json(),
                next_attempt_at=timezone.now(),
            )
    except IntegrityError:
        return Delivery.objects.get(destination=destination, idempotency_key=idempotency_key)
    delivery_id = delivery.pk
    transaction.on_commit(lambda: delivery_schedule(delivery_id=delivery_id))
    return delivery


def delivery_schedule(*, delivery_id: int, countdown: float = 0) -> None:
    """Hand a delivery to the workers; if the broker is down the sweeper finds it later."""
    try:
        celery_app.send_task(DELIVER_TASK, args=[delivery_id], countdown=countdown or None)
    except Exception:  # the delivery is already durable: losing this message loses nothing
        logger.warning("broker unavailable; delivery %s left for the sweeper", delivery_id)
