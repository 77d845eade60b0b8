"""Duplicates are free: the same event posted or applied many times stores one row and yields one graph."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from lineage_app.graph.schema import graph_schema_init
from lineage_app.graph.writer import graph_wipe
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from tests.events import run_lifecycle
from tests.graph_dump import graph_dump

pytestmark = pytest.mark.django_db


def post_single(client: APIClient, event: dict[str, Any], *, indent: int | None = None) -> Any:
    return client.post("/api/v1/lineage", data=json.dumps(event, indent=indent), content_type="application/json")


def mark_pending() -> None:
    LineageEvent.objects.update(status=LineageEvent.Status.PENDING, applied_at=None)


def test_an_event_posted_many_times_is_stored_once_and_every_repeat_is_a_duplicate(ingest_client: APIClient) -> None:
    event = run_lifecycle()[0]
    answers = [post_single(ingest_client, event, indent=i % 3 or None) for i in range(6)]
    batch = ingest_client.post(
        "/api/v1/lineage/batch", data=json.dumps([event, event]), content_type="application/json"
    ).json()
    assert [a.status_code for a in answers] == [201, 200, 200, 200, 200, 200]
    ids = {a.json()["id"] for a in answers} | {r["id"] for r in batch["results"]}
    assert len(ids) == 1
    assert [r["status"] for r in batch["results"]] == ["duplicate", "duplicate"]
    assert LineageEvent.objects.count() == 1


def test_a_run_posted_many_times_and_applied_gives_the_graph_of_applying_it_once(
    graph: Any, ingest_client: APIClient
) -> None:
    events = run_lifecycle()
    for event in events:
        assert post_single(ingest_client, event).status_code == 201
    ids = list(LineageEvent.objects.values_list("id", flat=True))
    assert events_apply(event_ids=ids) == 3
    once = graph_dump()
    assert any(entry.startswith('{"labels"') for entry in once), "nodes"
    assert any(entry.startswith('{"from"') for entry in once), "relationships"

    # The same run again, posted five times over in both endpoints, then applied again and again.
    for _ in range(5):
        for event in events:
            assert post_single(ingest_client, event, indent=2).status_code == 200
        ingest_client.post("/api/v1/lineage/batch", data=json.dumps(events), content_type="application/json")
    assert LineageEvent.objects.count() == 3
    assert events_apply(event_ids=ids) == 0, "applied events are not applied twice"
    assert graph_dump() == once
    for _ in range(3):
        mark_pending()  # a redelivered task: the same events applied over an existing graph
        assert events_apply(event_ids=ids * 2) == 3
        assert graph_dump() == once


def test_applying_each_event_of_a_run_several_times_into_an_empty_graph_gives_the_same_graph(
    graph: Any, ingest_client: APIClient
) -> None:
    for event in run_lifecycle():
        post_single(ingest_client, event)
    ids = list(LineageEvent.objects.order_by("id").values_list("id", flat=True))
    events_apply(event_ids=ids)
    once = graph_dump()

    graph_wipe()
    graph_schema_init()
    mark_pending()
    for event_id in ids + ids[::-1]:
        LineageEvent.objects.filter(id=event_id).update(status=LineageEvent.Status.PENDING)
        assert events_apply(event_ids=[event_id, event_id]) == 1
    assert graph_dump() == once
