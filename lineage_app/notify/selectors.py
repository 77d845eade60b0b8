"""Reads of the notify app: destinations, deliveries, the outbox's gauges."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from lineage_app.instants import utc_text
from lineage_app.notify.models import Delivery, Destination


def deliveries_for(idempotency_key_prefix: str) -> QuerySet[Delivery]:
    """The deliveries whose idempotency key starts with `idempotency_key_prefix`, newest first, with
    their state (pending / sending / sent / dead), attempts, last error and sent time."""
    return Delivery.objects.filter(idempotency_key__startswith=idempotency_key_prefix).select_related("destination")


def delivery_list(*, state: str | None = None, destination_id: int | None = None) -> QuerySet[Delivery]:
    deliveries = Delivery.objects.select_related("destination")
    if state is not None:
        deliveries = deliveries.filter(state=state)
    if destination_id is not None:
        deliveries = deliveries.filter(destination_id=destination_id)
    return deliveries


def destination_list() -> QuerySet[Destination]:
    """Destinations by name, each with how many of its deliveries are dead-lettered (`dead`)."""
    return Destination.objects.annotate(dead=Count("deliveries", filter=Q(deliveries__state=Delivery.State.DEAD)))


def due_delivery_ids(*, overdue_seconds: float, limit: int) -> list[int]:
    """Pending deliveries due for longer than `overdue_seconds`: their message was lost or never sent."""
    before = timezone.now() - timedelta(seconds=overdue_seconds)
    due = Delivery.objects.filter(state=Delivery.State.PENDING, next_attempt_at__lte=before)
    return list(due.order_by("next_attempt_at").values_list("id", flat=True)[:limit])


def outbox_gauges() -> dict[str, int]:
    """Deliveries in the outbox by state, every state named (what `/metrics` reports when scraped)."""
    counts = dict(Delivery.objects.order_by().values_list("state").annotate(n=Count("id")))
    return {state: counts.get(state, 0) for state in Delivery.State.values}


def destination_row(destination: Destination, *, dead: int | None = None) -> dict[str, Any]:
    """What the API answers of a destination: never its secret (only whether it has one), and of a
    Slack or Teams webhook only the host (their URL is their credential)."""
    return {
        "id": destination.pk,
        "name": destination.name,
        "kind": destination.kind,
        "url": url_shown(destination),
        "email": destination.email,
        "hasSecret": bool(destination.secret),
        "enabled": destination.enabled,
        "deadDeliveries": getattr(destination, "dead", 0) if dead is None else dead,
        "createdAt": utc_text(destination.created_at),
        "updatedAt": utc_text(destination.updated_at),
    }


def url_shown(destination: Destination) -> str:
    if destination.kind in (Destination.Kind.SLACK, Destination.Kind.TEAMS) and destination.url:
        parts = urlsplit(destination.url)
        return f"{parts.scheme}://{parts.netloc}/…"
    return destination.url


def delivery_row(delivery: Delivery) -> dict[str, Any]:
    message = delivery.message
    return {
        "id": delivery.pk,
        "destination": {
            "id": delivery.destination_id,
            "name": delivery.destination.name,
            "kind": delivery.destination.kind,
        },
        "idempotencyKey": delivery.idempotency_key,
        "title": message.get("title", ""),
        "state": delivery.state,
        "attempts": delivery.attempts,
        "lastError": delivery.last_error,
        "createdAt": utc_text(delivery.created_at),
        "nextAttemptAt": utc_text(delivery.next_attempt_at) if delivery.state == Delivery.State.PENDING else None,
        "sentAt": utc_text(delivery.sent_at) if delivery.sent_at else None,
    }
