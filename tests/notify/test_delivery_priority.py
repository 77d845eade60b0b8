"""A worker takes an alert message's delivery before applies queued ahead of it: on one Redis queue, apply
tasks have a lower priority than everything else (`CELERY_TASK_ROUTES`)."""

from __future__ import annotations

from typing import Any

from lineage_app.celery import app as celery_app
from lineage_app.ingest.services import events_enqueue
from lineage_app.notify.services import delivery_schedule


def _next_task(connection: Any) -> str:
    queue = connection.SimpleQueue(celery_app.conf.task_default_queue)
    try:
        message = queue.get(timeout=5)
        message.ack()
        return str(message.headers["task"])
    finally:
        queue.close()


def test_a_delivery_is_taken_before_the_applies_queued_ahead_of_it(broker: Any) -> None:
    with celery_app.connection_for_write() as connection:
        connection.default_channel.queue_purge(celery_app.conf.task_default_queue)
        events_enqueue(event_ids=[1, 2, 3])
        events_enqueue(event_ids=[4, 5, 6])
        delivery_schedule(delivery_id=42)
        taken = [_next_task(connection) for _ in range(3)]
    assert taken == [
        "lineage_app.notify.tasks.deliver",
        "lineage_app.ingest.tasks.apply_events",
        "lineage_app.ingest.tasks.apply_events",
    ]
