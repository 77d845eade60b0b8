"""The experimental `lineage` facet (LineageFacet 1-0-0, OpenLineage PR #4804), read only with
`LINEAGE_FACET_ENABLED`: a target dataset's sources become its job's inputs, its field sources column lineage with
their transformations, and a job feeding the event's job a `LINEAGE` job -> job edge; all through the same
time-aware fold as every other edge, so a later completed run that no longer states them leaves them stale."""

from __future__ import annotations

import json
from io import StringIO
from typing import Any
from urllib.parse import urlencode

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from lineage_app.graph.lineage_facet import explicit_lineage_payload
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from tests.events import dataset, facet
from tests.explorer.application_graph import run
from tests.graph_dump import graph_dump

pytestmark = pytest.mark.django_db

LAKE = "s3://lake"
CLEAN, BY_DAY = f"dataset:{LAKE}:clean/orders", f"dataset:{LAKE}:agg/orders_by_day"
JOB, EXTRACT = "job:spark:orders_by_day", "job:airflow:orders_nightly.extract"
AGGREGATION = {"type": "DIRECT", "subtype": "AGGREGATION", "description": "sum(amount)", "masking": False}


def ids(n: int) -> str:
    return f"00000000-0000-4000-8000-0000000f{n:04d}"


def explicit_lineage() -> dict[str, Any]:
    """The target's `lineage` dataset facet: fed by clean/orders, its `total` the sum of clean/orders' `amount`."""
    source = {"namespace": LAKE, "name": "clean/orders", "type": "DATASET"}
    return facet(
        inputs=[source],
        fields={"total": {"inputs": [{**source, "field": "amount", "transformations": [AGGREGATION]}]}},
    )


def job_lineage() -> dict[str, Any]:
    """The job's `lineage` job facet: an entry for the event's own job (no name), fed by the Airflow extract task."""
    extract = {"namespace": "airflow", "name": "orders_nightly.extract", "type": "JOB"}
    return facet(entries=[{"type": "JOB", "inputs": [extract]}])


def stated_run(run_id: str, *, minutes: int, stating: bool = True) -> list[dict[str, Any]]:
    """A run of the job writing orders_by_day (listing no input), with both `lineage` facets when `stating`."""
    target = dataset(LAKE, "agg/orders_by_day", fields=[("day", "date"), ("total", "double")])
    if stating:
        target["facets"]["lineage"] = explicit_lineage()
    events = run(run_id, "orders_by_day", minutes=minutes, outputs=[target])
    if stating:
        for event in events:
            event["job"]["facets"]["lineage"] = job_lineage()
    return events


def post_and_apply(client: APIClient, events: list[dict[str, Any]]) -> None:
    answer = client.post("/api/v1/lineage/batch", data=json.dumps(events), content_type="application/json")
    assert answer.json()["status"] == "success", answer.content
    events_apply(event_ids=list(LineageEvent.objects.values_list("id", flat=True)))


def get(client: APIClient, path: str, **params: Any) -> Any:
    response = client.get(f"/api/v1/{path}?{urlencode(params)}")
    assert response.status_code == 200, response.content
    return response.json()


def edges(client: APIClient, **params: Any) -> dict[tuple[str, str], dict[str, Any]]:
    body = get(client, "lineage", nodeId=BY_DAY, depth=4, direction="upstream", level="action", **params)
    return {(e["origin"], e["destination"]): e for node in body["graph"] for e in node["outEdges"]}


def test_the_lineage_facet_is_kept_but_not_read_by_default(
    graph: Any, ingest_client: APIClient, read_client: APIClient
) -> None:
    post_and_apply(ingest_client, stated_run(ids(1), minutes=0))
    assert set(edges(read_client)) == {(JOB, BY_DAY)}
    assert get(read_client, "jobs/detail", nodeId=JOB)["facets"]["lineage"]["entries"][0]["type"] == "JOB"


def test_read_it_draws_the_source_dataset_its_field_derivation_and_the_feeding_job(
    graph: Any, ingest_client: APIClient, read_client: APIClient, settings: Any
) -> None:
    settings.LINEAGE_FACET_ENABLED = True
    post_and_apply(ingest_client, stated_run(ids(1), minutes=0))
    drawn = edges(read_client)
    assert {(CLEAN, JOB), (JOB, BY_DAY), (EXTRACT, JOB)} <= drawn.keys()
    assert drawn[(CLEAN, JOB)]["inferred"] is False and drawn[(CLEAN, JOB)]["current"] is True
    assert drawn[(EXTRACT, JOB)]["declared"] is True
    [dependency] = get(read_client, "jobs/detail", nodeId=JOB)["dependencies"]
    assert (dependency["jobId"], dependency["direction"], dependency["dependencyType"]) == (
        EXTRACT,
        "upstream",
        "LINEAGE",
    )
    total = f"datasetField:{LAKE}:agg/orders_by_day:total"
    body = get(read_client, "column-lineage", nodeId=total, depth=1, direction="upstream")
    [derived] = next(node for node in body["graph"] if node["id"] == total)["inEdges"]
    assert (derived["origin"], derived["job"], derived["transformation"], derived["subtype"]) == (
        f"datasetField:{LAKE}:clean/orders:amount",
        JOB,
        "DIRECT",
        "AGGREGATION",
    )


def test_a_later_run_that_no_longer_states_it_leaves_its_edges_stale_even_when_it_arrives_first(
    graph: Any, ingest_client: APIClient, read_client: APIClient, settings: Any
) -> None:
    settings.LINEAGE_FACET_ENABLED = True
    post_and_apply(ingest_client, [*stated_run(ids(2), minutes=60, stating=False), *stated_run(ids(1), minutes=0)])
    assert set(edges(read_client)) == {(JOB, BY_DAY)}
    former = edges(read_client, includeStale="true")
    assert former[(CLEAN, JOB)]["current"] is False and former[(EXTRACT, JOB)]["current"] is False


def test_rebuilding_the_graph_gives_the_same_graph(graph: Any, ingest_client: APIClient, settings: Any) -> None:
    settings.LINEAGE_FACET_ENABLED = True
    post_and_apply(ingest_client, [*stated_run(ids(1), minutes=0), *stated_run(ids(2), minutes=60)])
    applied = graph_dump()
    call_command("rebuild_graph", "--no-progress", "--batch-size", "2", stdout=StringIO())
    assert graph_dump() == applied


def test_a_malformed_or_self_naming_lineage_facet_adds_nothing_and_never_fails() -> None:
    [event] = stated_run(ids(1), minutes=0)[:1]
    target = event["outputs"][0]
    target["facets"]["lineage"] = facet(
        inputs=[{"namespace": LAKE, "name": "agg/orders_by_day", "type": "DATASET"}, {"type": "DATASET"}, "x"],
        fields="not a map",
    )
    event["job"]["facets"]["lineage"] = facet(entries=[{"type": "JOB", "namespace": "airflow"}, {"type": "JOB"}, 7])
    read = explicit_lineage_payload(event)
    assert (read["inputs"], [o["name"] for o in read["outputs"]]) == ([], ["agg/orders_by_day"])
    assert "jobDependencies" not in read["run"]["facets"]
