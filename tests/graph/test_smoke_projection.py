"""A run's events, applied through the service, land in the graph as the design describes."""

from __future__ import annotations

import json

import pytest

from lineage_app.explorer.selectors.jobs_and_runs import run_for_id
from lineage_app.explorer.selectors.lineage import lineage_for_node
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from tests.events import run_lifecycle

pytestmark = pytest.mark.django_db


def post_all(client, events):  # type: ignore[no-untyped-def]
    for event in events:
        response = client.post("/api/v1/lineage", data=json.dumps(event), content_type="application/json")
        assert response.status_code == 201, response.content


def test_a_completed_run_is_projected_with_its_lineage(graph, ingest_client):  # type: ignore[no-untyped-def]
    events = run_lifecycle()
    post_all(ingest_client, events)
    applied = events_apply(event_ids=list(LineageEvent.objects.values_list("id", flat=True)))
    assert applied == 3
    run = run_for_id(run_id=events[0]["run"]["runId"])
    assert run["state"] == "COMPLETED"
    assert run["durationMs"] == 5 * 60 * 1000
    assert run["inputs"] == ["dataset:file:///data:raw/orders"]
    lineage = lineage_for_node(
        node_id="dataset:file:///data:raw/orders", depth=2, direction="downstream", level="action"
    )
    ids = [node["id"] for node in lineage["graph"]]
    assert ids == ["dataset:file:///data:clean/orders", "dataset:file:///data:raw/orders", "job:spark:etl.daily"]
