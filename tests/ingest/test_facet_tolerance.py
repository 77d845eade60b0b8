"""Invariant 8: a facet never costs lineage. An event whose facet fails its schema is stored as sent,
applied without that facet, and answered with a warning; the core stays strict; a strict facet policy
refuses such events as before."""

from __future__ import annotations

import copy
import hashlib
import json
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.test import override_settings
from rest_framework.test import APIClient

from lineage_app.explorer.selectors.datasets import dataset_detail
from lineage_app.explorer.selectors.jobs_and_runs import job_detail, run_for_id
from lineage_app.graph.driver import graph_read, records
from lineage_app.ingest.models import FacetPolicy, LineageEvent
from lineage_app.ingest.selectors import facet_warning_counts
from lineage_app.ingest.services import events_apply
from lineage_app.signatures.models import ProducerKey
from lineage_protocol import VerificationStatus, canonical_json, generate_private_key, public_key_pem, sign_event
from tests.events import PRODUCER, T0, facet, new_run_id, run_event
from tests.graph_dump import graph_dump

pytestmark = pytest.mark.django_db

URL = "/api/v1/lineage"
SOURCE = "dataset:file:///lake:raw/orders"
TARGET = "dataset:file:///lake:clean/orders"
JOB = "job:spark:etl.daily"


def lifecycle(*, run_id: str | None = None, namespace: str = "spark") -> list[dict[str, Any]]:
    """START and COMPLETE of one run reading raw/orders and writing clean/orders, every facet valid."""
    run_id = run_id or new_run_id()
    source = {
        "namespace": "file:///lake",
        "name": "raw/orders",
        "facets": {"documentation": facet(description="orders as loaded")},
    }
    target = {
        "namespace": "file:///lake",
        "name": "clean/orders",
        "facets": {"schema": facet(fields=[{"name": "id", "type": "bigint"}])},
    }
    start = run_event(
        "START",
        run_id=run_id,
        namespace=namespace,
        inputs=[source],
        outputs=[target],
        run_facets={"nominalTime": facet(nominalStartTime="2026-01-05T08:00:00Z")},
    )
    start["job"]["facets"] = {"jobType": facet(processingType="BATCH", integration="SPARK", jobType="JOB")}
    end = run_event(
        "COMPLETE",
        run_id=run_id,
        namespace=namespace,
        at=T0 + timedelta(minutes=5),
        inputs=[copy.deepcopy(source)],
        outputs=[copy.deepcopy(target)],
    )
    return [start, end]


def post(client: APIClient, event: dict[str, Any] | bytes) -> Any:
    data = event if isinstance(event, bytes) else json.dumps(event).encode()
    return client.post(URL, data=data, content_type="application/json")


def accepted(response: Any) -> dict[str, Any]:
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "accepted"
    return body


# (name, facet map of the START event, facet key, bad facet, warning path, warning message)
TOLERATED: list[tuple[str, tuple[Any, ...], str, dict[str, Any], str, str]] = [
    (
        "processing_engine without version",
        ("run", "facets"),
        "processing_engine",
        facet(name="spark", openlineageAdapterVersion="1.54.0"),
        "run.facets.processing_engine",
        "'version' is a required property",
    ),
    (
        "version without datasetVersion",
        ("inputs", 0, "facets"),
        "version",
        facet(),
        "inputs[0].facets.version",
        "'datasetVersion' is a required property",
    ),
    (
        "symlinks identifier without namespace",
        ("inputs", 0, "facets"),
        "symlinks",
        facet(identifiers=[{"name": "shop.orders", "type": "TABLE"}]),
        "inputs[0].facets.symlinks",
        "identifiers[0]: 'namespace' is a required property",
    ),
    (
        "catalog without name",
        ("outputs", 0, "facets"),
        "catalog",
        facet(framework="iceberg", type="rest"),
        "outputs[0].facets.catalog",
        "'name' is a required property",
    ),
    (
        "parent without run",
        ("run", "facets"),
        "parent",
        facet(job={"namespace": "airflow", "name": "dag.task"}),
        "run.facets.parent",
        "'run' is a required property",
    ),
    (
        "a custom run facet whose _producer is not a string",
        ("run", "facets"),
        "spark.logicalPlan",
        {"_producer": 42, "_schemaURL": "https://example.com/LogicalPlan.json", "plan": []},
        "run.facets.spark.logicalPlan",
        "_producer: 42 is not of type 'string'",
    ),
    (
        "a custom job facet whose _schemaURL is not a string",
        ("job", "facets"),
        "airflow",
        {"_producer": PRODUCER, "_schemaURL": ["https://example.com/Airflow.json"]},
        "job.facets.airflow",
        "_schemaURL: ['https://example.com/Airflow.json'] is not of type 'string'",
    ),
]


def put_facet(event: dict[str, Any], where: tuple[Any, ...], key: str, value: dict[str, Any]) -> None:
    target: Any = event
    for step in where:
        target = target[step]
    target[key] = value


def facets_in_graph(where: tuple[Any, ...], run_id: str) -> dict[str, Any]:
    """The facets the graph keeps on the node that `where` in the START event describes."""
    if where[0] == "run":
        return run_for_id(run_id=run_id)["facets"]
    if where[0] == "job":
        return job_detail(node_id=JOB)["facets"]
    return dataset_detail(node_id=SOURCE if where[0] == "inputs" else TARGET)["facets"]


@pytest.mark.parametrize(
    ("where", "key", "bad", "path", "message"), [case[1:] for case in TOLERATED], ids=[c[0] for c in TOLERATED]
)
def test_an_event_with_an_invalid_facet_is_stored_as_sent_and_applied_without_that_facet(
    graph,
    ingest_client: APIClient,
    where: tuple[Any, ...],
    key: str,
    bad: dict[str, Any],
    path: str,
    message: str,
) -> None:
    start, end = lifecycle()
    run_id = start["run"]["runId"]
    if where[0] != "run":
        end["job"]["facets"] = copy.deepcopy(start["job"]["facets"])
    # On the newest event: the graph keeps a job's and a dataset's facets from their newest event.
    put_facet(end, where, key, bad)
    sent = json.dumps(end, indent=1).encode()

    start_body = accepted(post(ingest_client, start))
    assert start_body["warnings"] == []
    body = accepted(post(ingest_client, sent))
    assert body["warnings"] == [{"path": path, "message": message}]

    row = LineageEvent.objects.get(id=body["id"])
    assert bytes(row.raw) == sent
    assert row.payload == end
    assert row.content_hash == hashlib.sha256(canonical_json(end)).hexdigest()
    assert row.facet_warnings == [{"path": path, "message": message, "at": [*where, key]}]
    assert LineageEvent.objects.get(id=start_body["id"]).facet_warnings is None

    assert events_apply(event_ids=[start_body["id"], body["id"]]) == 2
    run = run_for_id(run_id=run_id)
    assert run["state"] == "COMPLETED"
    assert run["inputs"] == [SOURCE] and run["outputs"] == [TARGET]
    assert run["nominalStartTime"] == "2026-01-05T08:00:00Z"  # the event's valid facets are applied
    assert run.get("parentRunId") is None
    assert key not in facets_in_graph(where, run_id)
    assert "documentation" in dataset_detail(node_id=SOURCE)["facets"]
    assert job_detail(node_id=JOB)["jobType"] == "JOB"
    assert [e.get("warnings") for e in run["events"]] == [None, [{"path": path, "message": message}]]


def test_a_parent_facet_without_a_run_makes_no_parent_edge_and_does_not_break_the_fold(
    graph, ingest_client: APIClient
) -> None:
    start, end = lifecycle()
    bad_parent = facet(job={"namespace": "airflow", "name": "dag.task"})
    start["run"]["facets"]["parent"] = bad_parent
    end["run"]["facets"]["parent"] = bad_parent
    ids = [accepted(post(ingest_client, e))["id"] for e in (start, end)]
    assert events_apply(event_ids=ids) == 2
    rows = graph_read(lambda tx: records(tx, "MATCH (:Run)-[r:CHILD_OF]->(p:Run) RETURN p.runId AS parent"))
    assert rows == []
    assert LineageEvent.objects.filter(id__in=ids, status=LineageEvent.Status.APPLIED).count() == 2


def test_several_invalid_facets_of_one_event_each_get_a_warning_and_the_valid_ones_are_applied(
    graph, ingest_client: APIClient
) -> None:
    start, end = lifecycle()
    for _, where, key, bad, _, _ in TOLERATED:
        put_facet(start, where, key, bad)
    body = accepted(post(ingest_client, start))
    assert [w["path"] for w in body["warnings"]] == [
        "run.facets.processing_engine",
        "run.facets.parent",
        "run.facets.spark.logicalPlan",
        "job.facets.airflow",
        "inputs[0].facets.version",
        "inputs[0].facets.symlinks",
        "outputs[0].facets.catalog",
    ]
    events_apply(event_ids=[body["id"], accepted(post(ingest_client, end))["id"]])
    run = run_for_id(run_id=start["run"]["runId"])
    assert set(run["facets"]) == {"nominalTime"}
    assert set(dataset_detail(node_id=SOURCE)["facets"]) == {"documentation"}
    assert set(dataset_detail(node_id=TARGET)["facets"]) == set()  # schema is structure, not a blob facet
    assert dataset_detail(node_id=TARGET)["fields"]
    assert set(job_detail(node_id=JOB)["facets"]) == {"jobType"}


def test_rebuild_graph_leaves_out_the_same_invalid_facets_as_incremental_apply(graph, ingest_client: APIClient) -> None:
    events = lifecycle() + lifecycle()
    for event in events[::2]:
        for _, where, key, bad, _, _ in TOLERATED:
            put_facet(event, where, key, bad)
    for event in events:
        events_apply(event_ids=[accepted(post(ingest_client, event))["id"]])
    incremental = graph_dump()
    assert not any("processing_engine" in line or "logicalPlan" in line for line in incremental)
    call_command("rebuild_graph", "--no-progress", "--batch-size", "3", stdout=StringIO())
    assert graph_dump() == incremental


def test_a_duplicate_of_an_event_with_an_invalid_facet_is_answered_with_the_same_warnings(
    ingest_client: APIClient,
) -> None:
    start, _ = lifecycle()
    start["run"]["facets"]["processing_engine"] = facet(name="spark")
    first = accepted(post(ingest_client, start))
    again = post(ingest_client, json.dumps(start, sort_keys=True).encode())
    assert again.status_code == 200
    assert again.json() == {
        "id": first["id"],
        "status": "duplicate",
        "leafIndex": first["leafIndex"],
        "warnings": first["warnings"],
    }
    stored = LineageEvent.objects.get(id=first["id"]).facet_warnings
    assert [{"path": w["path"], "message": w["message"]} for w in stored] == first["warnings"]
    assert LineageEvent.objects.count() == 1


def test_the_invalid_facet_counts_in_the_content_hash(ingest_client: APIClient) -> None:
    start, _ = lifecycle()
    clean = json.loads(json.dumps(start))
    start["run"]["facets"]["processing_engine"] = facet(name="spark")
    first, second = accepted(post(ingest_client, start)), accepted(post(ingest_client, clean))
    assert first["id"] != second["id"] and second["warnings"] == []


def test_a_signed_event_with_an_invalid_facet_still_verifies(graph, ingest_client: APIClient) -> None:
    key = generate_private_key()
    ProducerKey.objects.create(producer="spark-etl", public_key=public_key_pem(key.public_key()))
    start, _ = lifecycle()
    start["outputs"][0]["facets"]["catalog"] = facet(framework="iceberg")
    body = accepted(post(ingest_client, sign_event(start, key)))
    assert [w["path"] for w in body["warnings"]] == ["outputs[0].facets.catalog"]
    events_apply(event_ids=[body["id"]])
    row = LineageEvent.objects.get(id=body["id"])
    assert (row.verification, row.status) == (VerificationStatus.VERIFIED, LineageEvent.Status.APPLIED)


def test_a_core_violation_is_still_rejected_even_when_a_facet_is_invalid_too(ingest_client: APIClient) -> None:
    start, _ = lifecycle()
    start["run"]["facets"]["processing_engine"] = facet(name="spark")
    start["eventTime"] = "2026-01-05T08:00:00"
    response = post(ingest_client, start)
    assert response.status_code == 400
    assert response.json()["path"] == "eventTime" and "timezone" in response.json()["message"]
    assert LineageEvent.objects.count() == 0


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda e: e.pop("producer"), "producer"),
        (lambda e: e.pop("schemaURL"), "schemaURL"),
        (lambda e: e.update(eventType="DONE"), "eventType"),
        (lambda e: e["run"].update(runId="not-a-uuid"), "run.runId"),
        (lambda e: e["job"].pop("namespace"), "job.namespace"),
        (lambda e: e["outputs"][0].pop("name"), "outputs[0].name"),
    ],
    ids=["producer", "schemaURL", "eventType", "runId", "job namespace", "dataset name"],
)
def test_the_event_core_stays_strict(ingest_client: APIClient, change: Any, path: str) -> None:
    start, _ = lifecycle()
    start["run"]["facets"]["processing_engine"] = facet(name="spark")
    change(start)
    response = post(ingest_client, start)
    assert response.status_code == 400, response.content
    assert response.json()["path"] == path
    assert LineageEvent.objects.count() == 0


@override_settings(FACET_POLICY="strict")
def test_under_a_strict_facet_policy_an_invalid_facet_is_a_400_and_nothing_is_stored(
    ingest_client: APIClient,
) -> None:
    start, _ = lifecycle()
    start["run"]["facets"]["processing_engine"] = facet(name="spark")
    response = post(ingest_client, start)
    assert response.status_code == 400
    assert response.json()["path"] == "run.facets.processing_engine.version"
    assert response.json()["message"] == "'version' is a required property"
    assert LineageEvent.objects.count() == 0
    clean, _ = lifecycle()
    assert accepted(post(ingest_client, clean))["warnings"] == []  # strict refuses only what is invalid


def test_a_namespace_policy_makes_facets_strict_for_that_namespace_only(ingest_client: APIClient) -> None:
    FacetPolicy.objects.create(namespace="finance", mode=FacetPolicy.Mode.STRICT)
    finance, _ = lifecycle(namespace="finance")
    other, _ = lifecycle(namespace="spark")
    for event in (finance, other):
        event["outputs"][0]["facets"]["catalog"] = facet(framework="iceberg", type="rest")
    refused = post(ingest_client, finance)
    assert refused.status_code == 400 and refused.json()["path"] == "outputs[0].facets.catalog.name"
    assert accepted(post(ingest_client, other))["warnings"][0]["path"] == "outputs[0].facets.catalog"
    assert list(LineageEvent.objects.values_list("job_namespace", flat=True)) == ["spark"]


@override_settings(FACET_POLICY="strict")
def test_a_namespace_policy_can_make_one_namespace_tolerant_under_a_strict_default(
    ingest_client: APIClient,
) -> None:
    FacetPolicy.objects.create(namespace="legacy", mode=FacetPolicy.Mode.TOLERANT)
    event, _ = lifecycle(namespace="legacy")
    event["run"]["facets"]["processing_engine"] = facet(name="spark")
    assert accepted(post(ingest_client, event))["warnings"][0]["path"] == "run.facets.processing_engine"


def test_a_dataset_event_follows_the_policy_of_its_dataset_namespace(ingest_client: APIClient) -> None:
    FacetPolicy.objects.create(namespace="warehouse", mode=FacetPolicy.Mode.STRICT)
    event = {
        "eventTime": "2026-01-05T08:00:00Z",
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
        "dataset": {"namespace": "warehouse", "name": "sales", "facets": {"version": facet()}},
    }
    assert post(ingest_client, event).status_code == 400
    event["dataset"]["namespace"] = "lake"
    assert accepted(post(ingest_client, event))["warnings"] == [
        {"path": "dataset.facets.version", "message": "'datasetVersion' is a required property"}
    ]


def test_the_run_detail_shows_each_events_warnings(graph, ingest_client: APIClient, read_client: APIClient) -> None:
    start, end = lifecycle()
    start["run"]["facets"]["processing_engine"] = facet(name="spark")
    ids = [accepted(post(ingest_client, e))["id"] for e in (start, end)]
    events_apply(event_ids=ids)
    response = read_client.get(f"/api/v1/jobs/runs/{start['run']['runId']}")
    assert response.status_code == 200, response.content
    assert [(e["eventType"], e.get("warnings")) for e in response.json()["events"]] == [
        ("START", [{"path": "run.facets.processing_engine", "message": "'version' is a required property"}]),
        ("COMPLETE", None),
    ]


def test_warnings_are_counted_per_producer_and_facet(ingest_client: APIClient) -> None:
    for _ in range(2):
        start, _ = lifecycle()
        start["run"]["facets"]["processing_engine"] = facet(name="spark")
        start["inputs"][0]["facets"]["symlinks"] = facet(identifiers=[{"name": "x", "type": "TABLE"}])
        accepted(post(ingest_client, start))
    other, _ = lifecycle()
    other["producer"] = "https://example.com/other-producer"
    other["run"]["facets"]["processing_engine"] = facet(name="flink")
    accepted(post(ingest_client, other))
    accepted(post(ingest_client, lifecycle()[0]))
    assert facet_warning_counts() == [
        {"producer": PRODUCER, "facet": "processing_engine", "events": 2},
        {"producer": PRODUCER, "facet": "symlinks", "events": 2},
        {"producer": "https://example.com/other-producer", "facet": "processing_engine", "events": 1},
    ]
    assert LineageEvent.objects.filter(facet_warnings__isnull=True).count() == 1


def test_the_read_api_lists_warnings_per_producer_and_facet_to_readers_only(
    ingest_client: APIClient, read_client: APIClient
) -> None:
    warned, _ = lifecycle()
    warned["run"]["facets"]["processing_engine"] = facet(name="spark")
    accepted(post(ingest_client, warned))
    answer = read_client.get("/api/v1/facet-warnings")
    assert answer.status_code == 200
    assert answer.json() == {"results": [{"producer": PRODUCER, "facet": "processing_engine", "events": 1}]}
    assert ingest_client.get("/api/v1/facet-warnings").status_code == 403
    assert APIClient().get("/api/v1/facet-warnings").status_code == 401


def test_the_admin_filters_events_with_warnings_and_shows_them(ingest_client: APIClient, admin_client: Any) -> None:
    warned, clean = lifecycle()
    warned["run"]["facets"]["processing_engine"] = facet(name="spark")
    warned_id = accepted(post(ingest_client, warned))["id"]
    clean_id = accepted(post(ingest_client, clean))["id"]
    listing = admin_client.get("/admin/ingest/lineageevent/", {"has_warnings": "yes"})
    assert listing.status_code == 200
    assert list(listing.context["cl"].queryset.values_list("id", flat=True)) == [warned_id]
    assert list(
        admin_client.get("/admin/ingest/lineageevent/", {"has_warnings": "no"})
        .context["cl"]
        .queryset.values_list("id", flat=True)
    ) == [clean_id]
    detail = admin_client.get(f"/admin/ingest/lineageevent/{warned_id}/change/")
    assert detail.status_code == 200
    assert "run.facets.processing_engine: &#x27;version&#x27; is a required property" in detail.content.decode()
    assert admin_client.get("/admin/ingest/facetpolicy/").status_code == 200
