"""Impact analysis on a known graph: exact sets, distances, paths, column transformations, owners, errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from lineage_app.graph.driver import graph_write
from lineage_app.graph.model import Label
from lineage_app.graph.ownership import manual_owners_merge
from tests.explorer.known_graph import AGGREGATE, CLEAN, EXPORT, EXPORT_JOB, LOAD, MART, RAW, build_known_graph

pytestmark = pytest.mark.django_db

RAW_AMOUNT, RAW_ID = "datasetField:db:raw.orders:amount", "datasetField:db:raw.orders:id"
CLEAN_AMOUNT, CLEAN_ID = "datasetField:db:clean.orders:amount_eur", "datasetField:db:clean.orders:id"
MART_TOTAL = "datasetField:db:mart.revenue:total"


@pytest.fixture
def known(graph: Any) -> None:
    build_known_graph()


def impact(client: APIClient, *node_ids: str, **params: Any) -> dict[str, Any]:
    response = client.get("/api/v1/impact", {"nodeId": list(node_ids), **params})
    assert response.status_code == 200, response.content
    assert response.streaming
    return json.loads(b"".join(response.streaming_content))


def by_id(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {asset["id"]: asset for asset in body["assets"]}


def test_impact_of_a_dataset_reaches_every_downstream_dataset_job_and_field(
    known: None, read_client: APIClient
) -> None:
    body = impact(read_client, RAW, depth=10)
    assert body["nodeIds"] == [RAW]
    assets = {a["id"]: (a["type"], a["distance"]) for a in body["assets"]}
    assert assets == {
        LOAD: ("JOB", 1),
        CLEAN: ("DATASET", 2),
        AGGREGATE: ("JOB", 3),
        MART: ("DATASET", 4),
        EXPORT_JOB: ("JOB", 5),
        EXPORT: ("DATASET", 6),
        CLEAN_ID: ("DATASET_FIELD", 1),
        CLEAN_AMOUNT: ("DATASET_FIELD", 1),
        MART_TOTAL: ("DATASET_FIELD", 2),
    }
    found = by_id(body)
    assert found[EXPORT]["path"] == [RAW, LOAD, CLEAN, AGGREGATE, MART, EXPORT_JOB, EXPORT]
    assert found[CLEAN]["path"] == [RAW, LOAD, CLEAN]
    assert [a["distance"] for a in body["assets"]] == sorted(a["distance"] for a in body["assets"])


def test_column_paths_carry_the_transformation_and_job_of_every_derivation(known: None, read_client: APIClient) -> None:
    total = by_id(impact(read_client, RAW, depth=10))[MART_TOTAL]
    assert total["path"] == [RAW_AMOUNT, CLEAN_AMOUNT, MART_TOTAL]
    assert total["transformations"] == [
        {"job": LOAD, "transformation": "DIRECT", "subtype": "TRANSFORMATION", "indirect": False},
        {"job": AGGREGATE, "transformation": "DIRECT", "subtype": "AGGREGATION", "indirect": False},
    ]
    assert total["dataset"] == MART and total["fieldType"] == "double"


def test_impact_of_one_field_is_column_level_with_the_datasets_and_jobs_it_reaches(
    known: None, read_client: APIClient
) -> None:
    body = impact(read_client, RAW_AMOUNT)
    assert {a["id"]: a["distance"] for a in body["assets"]} == {
        CLEAN_AMOUNT: 1,
        CLEAN: 1,
        LOAD: 1,
        MART_TOTAL: 2,
        MART: 2,
        AGGREGATE: 2,
    }
    found = by_id(body)
    assert found[MART]["path"] == [RAW_AMOUNT, CLEAN_AMOUNT, MART_TOTAL, MART]
    assert found[CLEAN_AMOUNT]["transformations"][0]["subtype"] == "TRANSFORMATION"
    assert RAW_ID not in found and CLEAN_ID not in found


def test_several_fields_are_one_change_each_asset_at_its_nearest_distance(known: None, read_client: APIClient) -> None:
    body = impact(read_client, RAW_ID, CLEAN_AMOUNT)
    assert body["nodeIds"] == [RAW_ID, CLEAN_AMOUNT]
    found = by_id(body)
    assert found[MART_TOTAL]["distance"] == 1
    assert found[MART_TOTAL]["path"] == [CLEAN_AMOUNT, MART_TOTAL]
    assert found[CLEAN_ID]["path"] == [RAW_ID, CLEAN_ID]
    assert found[CLEAN_ID]["transformations"] == [
        {"job": LOAD, "transformation": "DIRECT", "subtype": "IDENTITY", "indirect": False}
    ]


def test_impact_of_a_job_starts_at_its_outputs(known: None, read_client: APIClient) -> None:
    body = impact(read_client, AGGREGATE)
    assert [(a["id"], a["distance"]) for a in body["assets"]] == [(MART, 1), (EXPORT_JOB, 2), (EXPORT, 3)]


def test_depth_bounds_the_report(known: None, read_client: APIClient) -> None:
    body = impact(read_client, RAW, depth=2)
    assert {a["id"] for a in body["assets"]} == {LOAD, CLEAN, CLEAN_ID, CLEAN_AMOUNT, MART_TOTAL}
    assert body["summary"]["byDepth"] == {"1": 3, "2": 2}


def test_as_of_leaves_out_edges_first_seen_later(known: None, read_client: APIClient) -> None:
    # The aggregate job appears on day 1: as of day 0 nothing past clean.orders is affected.
    body = impact(read_client, RAW, depth=10, asOf="2026-01-05T12:00:00Z")
    assert {a["id"] for a in body["assets"] if a["type"] != "DATASET_FIELD"} == {LOAD, CLEAN}


def test_assets_carry_their_last_run_and_event_owners(known: None, read_client: APIClient) -> None:
    found = by_id(impact(read_client, RAW, depth=10))
    assert (found[MART]["lastRunState"], found[MART]["lastRunTime"]) == ("FAILED", "2026-01-08T08:10:00.000000Z")
    assert found[EXPORT_JOB]["lastRunState"] == "ABORTED"
    owners = [(o["name"], o["source"], o["inherited"]) for o in found[CLEAN]["owners"]]
    assert owners == [("team:sales", "event", False)]
    assert found[CLEAN_ID]["owners"] == found[CLEAN]["owners"]  # a field answers to its dataset's owners
    assert found[MART]["owners"] == []


def test_owners_are_effective_hand_set_first_and_inherited_from_the_namespace(
    known: None, read_client: APIClient
) -> None:
    graph_write(
        lambda tx: manual_owners_merge(
            tx,
            rows=[
                {
                    "label": Label.NAMESPACE.value,
                    "targetKey": "db",
                    "owner": "team:data-platform",
                    "kind": "team",
                    "contact": "dp@example.com",
                    "role": "OWNER",
                },
                {
                    "label": Label.DATASET.value,
                    "targetKey": "db\x1fclean.orders",
                    "owner": "user:ana",
                    "kind": "person",
                    "contact": "",
                    "role": "OWNER",
                },
            ],
        )
    )
    body = impact(read_client, RAW, depth=10)
    found = by_id(body)
    assert [(o["name"], o["source"], o["inherited"]) for o in found[CLEAN]["owners"]] == [("user:ana", "manual", False)]
    assert [(o["name"], o["inherited"], o["contact"]) for o in found[MART]["owners"]] == [
        ("team:data-platform", True, "dp@example.com")
    ]
    assert found[EXPORT]["owners"] == []  # another namespace, nobody owns it
    assert body["summary"]["byOwner"] == {"(no owner)": 4, "team:data-platform": 2, "user:ana": 3}


def test_the_summary_counts_by_owner_namespace_depth_and_type(known: None, read_client: APIClient) -> None:
    summary = impact(read_client, RAW, depth=10)["summary"]
    assert summary == {
        "total": 9,
        "staleLeftOut": 0,
        "byType": {"DATASET": 3, "DATASET_FIELD": 3, "JOB": 3},
        "byOwner": {"(no owner)": 6, "team:sales": 3},
        "byNamespace": {"db": 5, "spark": 2, "airflow": 1, "s3://bucket": 1},
        "byDepth": {"1": 3, "2": 2, "3": 1, "4": 1, "5": 1, "6": 1},
    }


def test_a_leaf_has_no_impact(known: None, read_client: APIClient) -> None:
    body = impact(read_client, EXPORT)
    assert body["assets"] == [] and body["summary"]["total"] == 0


@pytest.mark.parametrize(
    ("params", "status", "path"),
    [
        ({}, 400, "nodeId"),
        ({"nodeId": "dataset:db:nope"}, 404, "nodeId"),
        ({"nodeId": "run:123"}, 404, "nodeId"),
        ({"nodeId": RAW, "depth": 99}, 400, "depth"),
        ({"nodeId": RAW, "depth": 0}, 400, "depth"),
        ({"nodeId": RAW, "depth": "x"}, 400, "depth"),
        ({"nodeId": RAW, "asOf": "yesterday"}, 400, "asOf"),
    ],
)
def test_bad_parameters_are_a_json_4xx_naming_the_parameter(
    known: None, read_client: APIClient, params: dict[str, Any], status: int, path: str
) -> None:
    response = read_client.get("/api/v1/impact", params)
    assert response.status_code == status, response.content
    assert response.json()["path"] == path


def test_impact_needs_read_permission(known: None, ingest_client: APIClient) -> None:
    assert APIClient().get("/api/v1/impact", {"nodeId": RAW}).status_code == 401
    assert ingest_client.get("/api/v1/impact", {"nodeId": RAW}).status_code == 403
    assert ingest_client.get("/api/v1/impact/report", {"nodeId": RAW, "format": "pdf"}).status_code == 403
    assert ingest_client.get("/api/v1/root-cause", {"nodeId": RAW}).status_code == 403
