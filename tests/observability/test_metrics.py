"""`/metrics` after a known workload: exact ingest counts by outcome and reason, apply counters and lag,
event-log gauges read at scrape time, request counts by route pattern and graph query timings."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply, events_mark_failed
from lineage_app.signatures.models import SignaturePolicy
from tests.events import new_run_id, run_event, run_lifecycle
from tests.observability.scrape import Samples, samples_of, value

pytestmark = pytest.mark.django_db

INGEST = "tributary_ingest_events_total"
REQUESTS = "tributary_http_requests_total"


def scrape() -> Samples:
    response = Client().get("/metrics")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    return samples_of(response.content.decode())


def post(client: APIClient, path: str, body: Any, content_type: str = "application/json") -> Any:
    data = body if isinstance(body, str) else json.dumps(body)
    return client.post(path, data=data, content_type=content_type)


def delta(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


def test_a_known_workload_shows_exact_counts_and_gauges(graph, ingest_client: APIClient) -> None:  # type: ignore[no-untyped-def]
    SignaturePolicy.objects.create(namespace="secure", mode=SignaturePolicy.Mode.ENFORCE)
    lifecycle = run_lifecycle()
    unsigned_in_enforced = run_event("START", run_id=new_run_id(), namespace="secure")
    doomed = run_event("START", run_id=new_run_id(), job="etl.doomed")
    before = scrape()

    statuses = [post(ingest_client, "/api/v1/lineage", event).status_code for event in [*lifecycle, doomed]]
    assert statuses == [201, 201, 201, 201]
    assert post(ingest_client, "/api/v1/lineage", lifecycle[0]).status_code == 200
    batch = post(ingest_client, "/api/v1/lineage/batch", [lifecycle[1], unsigned_in_enforced, {"eventType": 1}])
    assert [r["status"] for r in batch.json()["results"]] == ["duplicate", "accepted", "rejected"]
    assert post(ingest_client, "/api/v1/lineage", "{not json").status_code == 400
    assert post(ingest_client, "/api/v1/lineage", "x", content_type="text/plain").status_code == 415

    stored = scrape()
    assert delta(before, stored, INGEST, outcome="accepted", reason="") == 5
    assert delta(before, stored, INGEST, outcome="duplicate", reason="") == 2
    assert delta(before, stored, INGEST, outcome="rejected", reason="invalid_event") == 2
    assert delta(before, stored, INGEST, outcome="rejected", reason="unsupported_media_type") == 1
    assert value(stored, "tributary_events_backlog") == 5
    assert value(stored, "tributary_events_stored", status="pending") == 5
    assert value(stored, "tributary_events_oldest_pending_age_seconds") > 0
    assert value(stored, "tributary_events_verification", status="unchecked") == 5
    single = {"route": "/api/v1/lineage", "method": "POST"}
    assert delta(before, stored, REQUESTS, **single, status="201") == 4
    assert delta(before, stored, REQUESTS, **single, status="200") == 1
    assert delta(before, stored, REQUESTS, **single, status="400") == 1
    assert delta(before, stored, REQUESTS, **single, status="415") == 1
    assert delta(before, stored, REQUESTS, route="/api/v1/lineage/batch", method="POST", status="200") == 1
    assert delta(before, stored, "tributary_http_request_duration_seconds_count", **single) == 7

    ids = list(LineageEvent.objects.order_by("id").values_list("id", flat=True))
    doomed_id = LineageEvent.objects.get(job_name="etl.doomed").id
    events_mark_failed(event_ids=[doomed_id], reason="cannot be applied")
    assert events_apply(event_ids=[i for i in ids if i != doomed_id]) == 3

    applied = scrape()
    assert delta(stored, applied, "tributary_events_applied_total") == 3
    assert delta(stored, applied, "tributary_events_quarantined_total") == 1
    assert delta(stored, applied, "tributary_events_failed_total") == 1
    assert delta(stored, applied, "tributary_event_apply_lag_seconds_count") == 3
    assert delta(stored, applied, "tributary_event_apply_lag_seconds_bucket", le="+Inf") == 3
    assert delta(stored, applied, "tributary_graph_query_duration_seconds_count", kind="write") > 0
    assert value(applied, "tributary_events_backlog") == 0
    assert value(applied, "tributary_events_oldest_pending_age_seconds") == 0
    by_status = {s: value(applied, "tributary_events_stored", status=s) for s in ("applied", "quarantined", "failed")}
    assert by_status == {"applied": 3, "quarantined": 1, "failed": 1}
    assert value(applied, "tributary_events_verification", status="UNSIGNED") == 4
    assert value(applied, "tributary_events_verification", status="unchecked") == 1


def test_a_request_is_counted_under_its_route_pattern_not_its_path(graph, read_client: APIClient) -> None:  # type: ignore[no-untyped-def]
    run_ids = [new_run_id(), new_run_id()]
    before = scrape()
    for run_id in run_ids:
        assert read_client.get(f"/api/v1/jobs/runs/{run_id}").status_code == 404
    assert read_client.get("/api/v1/no/such/thing").status_code == 404
    after = scrape()
    routes = {dict(labels)["route"] for name, labels in after if name == REQUESTS}
    assert not [route for route in routes if any(run_id in route for run_id in run_ids)], routes
    assert delta(before, after, REQUESTS, route="/api/v1/jobs/runs/<str:run_id>", method="GET", status="404") == 2
    assert delta(before, after, REQUESTS, route="unmatched", method="GET", status="404") == 1


def test_events_two_workers_apply_at_once_are_counted_applied_once(  # type: ignore[no-untyped-def]
    graph, ingest_client: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two workers can load the same pending events (a message's ids plus what else waits) and both write
    them to the graph, which is idempotent; only the one that marks an event applied counts it. Here the
    other worker marks two of three events between this worker's graph write and its own marking."""
    from lineage_app.ingest import services
    from lineage_app.ingest.event_log import log_mark_applied

    ids = [post(ingest_client, "/api/v1/lineage", e).json()["id"] for e in run_lifecycle()]
    other_worker_at = timezone.now()
    publish = services.changes_publish

    marked_by_the_other: list[int] = []

    def the_other_worker_marks_first(records: Any) -> None:
        publish(records)
        if not marked_by_the_other:  # the publish before this worker marks (the graph's mirrors)
            marked_by_the_other.extend(log_mark_applied(ids[:2], other_worker_at))

    monkeypatch.setattr(services, "changes_publish", the_other_worker_marks_first)
    before = scrape()
    assert events_apply(event_ids=ids) == 3
    assert sorted(marked_by_the_other) == sorted(ids[:2])
    after = scrape()
    assert delta(before, after, "tributary_events_applied_total") == 1
    assert delta(before, after, "tributary_event_apply_lag_seconds_count") == 1
    rows = dict(LineageEvent.objects.filter(id__in=ids).values_list("id", "applied_at"))
    assert {rows[i] for i in ids[:2]} == {other_worker_at}, "what the other worker marked stays its own"
    assert rows[ids[2]] > other_worker_at
    assert set(LineageEvent.objects.filter(id__in=ids).values_list("status", flat=True)) == {"applied"}
    assert log_mark_applied(ids, timezone.now()) == set(), "an applied event is never marked again"


def test_a_graph_transaction_the_driver_runs_again_counts_one_retry(graph) -> None:  # type: ignore[no-untyped-def]
    from neo4j.exceptions import ServiceUnavailable

    from lineage_app.graph.driver import graph_write, records

    tries: list[int] = []

    def work(tx) -> int:  # type: ignore[no-untyped-def]
        tries.append(1)
        if len(tries) == 1:
            # A lost connection or a deadlock cannot be caused on demand: the error the driver retries on is raised
            # here instead, once.
            raise ServiceUnavailable("the engine went away")
        return records(tx, "RETURN 1 AS one")[0]["one"]

    before = scrape()
    assert graph_write(work) == 1
    assert len(tries) == 2
    assert delta(before, scrape(), "tributary_graph_retries_total", kind="write", reason="ServiceUnavailable") == 1
