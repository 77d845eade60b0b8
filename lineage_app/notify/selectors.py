"""Reads of the notify app: destinations and deliveries."""

from __future__ import annotations

from django.db.models import QuerySet

from lineage_app.notify.models import Delivery


def deliveries_for(idempotency_key_prefix: str) -> QuerySet[Delivery]:
    """The deliveries whose idempotency key starts with `idempotency_key_prefix`, newest first, with
    their state (pending / sending / sent / dead), attempts, last error and sent time."""
    return Delivery.objects.filter(idempotency_key__startswith=idempotency_key_prefix).select_related("destination")
