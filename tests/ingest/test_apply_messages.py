"""An `apply_events` message applies what still waits, and costs no write when its events are already applied."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from celery.exceptions import Retry
from django.db import OperationalError, connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from lineage_app.celery import app as celery_app
from lineage_app.ingest import services
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import APPLY_EVENTS_TASK, events_claim, events_mark_failed
from lineage_app.ingest.tasks import apply_events
from tests.events import new_run_id, run_event

pytestmark = pytest.mark.django_db


def accept(client: APIClient, count: int) -> list[int]:
    events = [run_event("START", run_id=new_run_id()) for _ in range(count)]
    return [
        client.post("/api/v1/lineage", data=json.dumps(e), content_type="application/json").json()["id"] for e in events
    ]


def test_a_message_for_events_already_applied_writes_nothing(graph, ingest_client) -> None:  # type: ignore[no-untyped-def]
    ids = accept(ingest_client, 3)
    assert apply_events.run(ids) == 3
    attempts = dict(LineageEvent.objects.values_list("id", "attempts"))
    with CaptureQueriesContext(connection) as queries:
        assert apply_events.run(ids) == 0
    assert all(q["sql"].lstrip().upper().startswith("SELECT") for q in queries.captured_queries), queries
    assert dict(LineageEvent.objects.values_list("id", "attempts")) == attempts


def test_a_message_naming_a_failed_event_applies_it_again(graph, ingest_client) -> None:  # type: ignore[no-untyped-def]
    [event_id] = accept(ingest_client, 1)
    events_mark_failed(event_ids=[event_id], reason="the graph said no")
    assert apply_events.run([event_id]) == 1
    assert LineageEvent.objects.get(pk=event_id).status == LineageEvent.Status.APPLIED


def test_the_name_services_send_messages_to_is_the_apply_events_task() -> None:
    assert celery_app.tasks[APPLY_EVENTS_TASK] == apply_events  # `apply_events` is a proxy to this task


def test_two_workers_take_different_events_and_a_retry_keeps_its_own(graph, ingest_client) -> None:  # type: ignore[no-untyped-def]
    ids = accept(ingest_client, 6)
    assert sorted(events_claim(event_ids=ids[:4], claimant="task-a")) == ids[:4]
    assert sorted(events_claim(event_ids=ids, claimant="task-b")) == ids[4:]
    assert sorted(events_claim(event_ids=ids, claimant="task-a")) == ids[:4]  # the same task, retried


def test_a_claim_that_ran_out_is_free_to_take(graph, ingest_client) -> None:  # type: ignore[no-untyped-def]
    ids = accept(ingest_client, 2)
    events_claim(event_ids=ids, claimant="a worker that died")
    LineageEvent.objects.filter(id__in=ids).update(claimed_until=timezone.now() - timedelta(seconds=1))
    assert sorted(events_claim(event_ids=ids, claimant="the next task")) == ids


def test_a_task_fills_its_batch_with_the_waiting_events_no_other_worker_holds(graph, ingest_client) -> None:  # type: ignore[no-untyped-def]
    ids = accept(ingest_client, 6)
    events_claim(event_ids=ids[:3], claimant="another worker")
    assert apply_events.run([]) == 3
    statuses = dict(LineageEvent.objects.values_list("id", "status"))
    assert [statuses[i] for i in ids] == [LineageEvent.Status.PENDING] * 3 + [LineageEvent.Status.APPLIED] * 3


def test_a_task_that_fails_transiently_leaves_its_events_to_other_workers(graph, ingest_client, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    ids = accept(ingest_client, 3)

    def locked(**_: object) -> int:
        # A database busy past its timeout cannot be caused on demand: the error it raises is raised here instead.
        raise OperationalError("database is locked")

    monkeypatch.setattr(services, "events_apply", locked)
    with pytest.raises((Retry, OperationalError)):  # Celery retries it later
        apply_events.run(ids)
    monkeypatch.undo()
    assert sorted(events_claim(event_ids=ids, claimant="another worker")) == ids
