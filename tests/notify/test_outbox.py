"""The outbox: enqueueing writes one row per key and destination, in the caller's transaction."""

from __future__ import annotations

import pytest
from django.db import transaction

from lineage_app.notify.messages import Message
from lineage_app.notify.models import Delivery, Destination
from lineage_app.notify.selectors import deliveries_for
from lineage_app.notify.services import enqueue

MESSAGE = Message(
    title="validate_orders failed",
    summary="A run of job finance.validate_orders failed.",
    severity="critical",
    facts=(("Job", "finance.validate_orders"), ("Cause", "data quality")),
    sections=(("Downstream", ("dataset:warehouse:orders_daily", "job:finance:report")),),
    links=(("Incident", "http://127.0.0.1:8000/incidents/1"),),
    event={"type": "incident.opened", "incident": 1},
)


@pytest.mark.django_db(transaction=True)
def test_a_second_enqueue_with_the_same_key_returns_the_first_row() -> None:
    hook = Destination.objects.create(name="hook", kind="webhook", url="http://127.0.0.1:9/", secret="s3cret")
    first = enqueue(destination=hook, message=MESSAGE, idempotency_key="incident:1:opened")
    again = enqueue(destination=hook, message=MESSAGE, idempotency_key="incident:1:opened")
    assert again.pk == first.pk
    assert Delivery.objects.count() == 1
    assert Message.from_json(first.message) == MESSAGE
    assert [d.state for d in deliveries_for("incident:1:")] == ["pending"]


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_caller_leaves_no_delivery() -> None:
    hook = Destination.objects.create(name="hook", kind="webhook", url="http://127.0.0.1:9/")
    with pytest.raises(RuntimeError), transaction.atomic():
        enqueue(destination=hook, message=MESSAGE, idempotency_key="incident:2:opened")
        raise RuntimeError("the incident change failed")
    assert not Delivery.objects.exists()
