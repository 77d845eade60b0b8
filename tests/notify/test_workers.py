"""Real Celery workers deliver the outbox: exactly once with two workers and duplicate messages, and a
destination that is down then up still gets each message once."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from lineage_app.notify import services
from lineage_app.notify.models import Delivery, Destination
from tests.conftest import wait_until
from tests.ingest.test_durable_accept import Celery
from tests.notify.receivers import WebhookReceiver
from tests.notify.test_outbox import MESSAGE

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[Celery]:
    processes = Celery(tmp_path)
    processes.env |= {
        "NOTIFY_RETRY_BASE_SECONDS": "0.3",
        "NOTIFY_RETRY_MAX_SECONDS": "1",
        "NOTIFY_SWEEP_INTERVAL_SECONDS": "1",
        "NOTIFY_SWEEP_GRACE_SECONDS": "0",
        "WORKER_NICENESS": "0",
    }
    yield processes
    processes.stop()


def _sent(ids: list[int]) -> bool:
    return Delivery.objects.filter(pk__in=ids, state="sent").count() == len(ids)


def test_two_workers_deliver_each_message_exactly_once_even_when_it_is_enqueued_three_times(workers) -> None:  # type: ignore[no-untyped-def]
    receiver = WebhookReceiver(secret="whsec", delay=0.02)
    try:
        hook = Destination.objects.create(name="hook", kind="webhook", url=receiver.url, secret="whsec")
        ids = [
            services.enqueue(destination=hook, message=MESSAGE, idempotency_key=f"incident:{n}:opened").pk
            for n in range(40)
        ]
        for delivery_id in ids * 2:  # two more messages per delivery: a redelivery, a sweeper's
            services.delivery_schedule(delivery_id=delivery_id)
        workers.start("worker", "--concurrency", "2", "--hostname", "one@%h")
        workers.start("worker", "--concurrency", "2", "--hostname", "two@%h")
        wait_until(lambda: _sent(ids), timeout=90, what="every delivery sent")
        assert Counter(receiver.keys()) == Counter({f"incident:{n}:opened": 1 for n in range(40)})
        assert all(r.signature_ok for r in receiver.received)
        assert set(Delivery.objects.values_list("attempts", flat=True)) == {1}
    finally:
        receiver.stop()


def test_a_webhook_that_is_down_then_up_gets_the_message_once_through_worker_retries(workers) -> None:  # type: ignore[no-untyped-def]
    port_holder = WebhookReceiver()
    port = port_holder.port
    port_holder.stop()  # nothing listens there now: the destination is down
    hook = Destination.objects.create(name="hook", kind="webhook", url=f"http://127.0.0.1:{port}/hook", secret="whsec")
    delivery = services.enqueue(destination=hook, message=MESSAGE, idempotency_key="incident:5:opened")
    workers.start("worker", "--pool", "solo")
    workers.start("beat", "--schedule", str(workers.tmp / "beat-schedule"))
    wait_until(lambda: Delivery.objects.get(pk=delivery.pk).attempts >= 2, timeout=60, what="two failed tries")
    down = Delivery.objects.get(pk=delivery.pk)
    assert down.state in ("pending", "sending") and "ConnectionError" in down.last_error
    receiver = WebhookReceiver(secret="whsec", port=port)  # back up
    try:
        wait_until(lambda: _sent([delivery.pk]), timeout=60, what="the delivery sent")
        time.sleep(3)  # the beat's sweeper runs every second meanwhile: it must not send it again
        assert receiver.keys() == ["incident:5:opened"]
    finally:
        receiver.stop()
