"""The read API on a known graph: every endpoint's exact answer, pages, time filters, ranking and errors."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

import pytest
from rest_framework.test import APIClient

from tests.events import T0
from tests.explorer.known_graph import (
    AGGREGATE,
    CLEAN,
    DAY,
    EXPORT,
    EXPORT_JOB,
    LOAD,
    MART,
    RAW,
    RUN_A,
    RUN_C,
    RUN_D,
    RUN_E,
    build_known_graph,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def known(graph: Any) -> None:
    build_known_graph()


def get(client: APIClient, path: str, **params: Any) -> Any:
    response = client.get(f"/api/v1/{path}?{urlencode(params)}")
    assert response.status_code == 200, response.content
    return response.json()


def ids(body: dict[str, Any]) -> list[str]:
    return [node["id"] for node in body["graph"]]


def edges(body: dict[str, Any]) -> set[tuple[str, str]]:
    return {(e["origin"], e["destination"]) for node in body["graph"] for e in node["outEdges"]}


def at(moment: Any) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


# ---- lineage ----


def _held(edge: dict) -> dict:
    """An edge's times, checked to be those of a current edge (docs/time.md)."""
    assert edge["current"] is True and edge["staleSince"] is None and edge["firstSeen"] <= edge["lastSeen"]
    return {name: edge[name] for name in ("firstSeen", "lastSeen", "current", "staleSince")}


def test_lineage_around_a_dataset_follows_data_flow_both_ways(known: None, read_client: APIClient) -> None:
    body = get(read_client, "lineage", nodeId=CLEAN, depth=2)
    assert (body["nodeId"], body["depth"], body["direction"], body["truncated"]) == (CLEAN, 2, "both", False)
    assert ids(body) == [CLEAN, MART, RAW, AGGREGATE, LOAD]
    assert edges(body) == {(RAW, LOAD), (LOAD, CLEAN), (CLEAN, AGGREGATE), (AGGREGATE, MART)}
    by_id = {node["id"]: node for node in body["graph"]}
    assert by_id[MART]["type"] == "DATASET" and by_id[AGGREGATE]["type"] == "JOB"
    (edge,) = by_id[CLEAN]["inEdges"]
    assert (edge["origin"], edge["destination"], edge["current"], edge["staleSince"]) == (LOAD, CLEAN, True, None)
    assert edge["firstSeen"] <= edge["lastSeen"]


def test_datasets_in_lineage_carry_the_state_of_the_latest_run_that_wrote_them(
    known: None, read_client: APIClient
) -> None:
    by_id = {node["id"]: node["data"] for node in get(read_client, "lineage", nodeId=CLEAN, depth=2)["graph"]}
    assert by_id[MART]["lastRunState"] == "FAILED"
    assert by_id[CLEAN]["lastRunState"] == "COMPLETED"
    assert by_id[RAW]["lastRunState"] is None
    assert by_id[AGGREGATE]["latestRunState"] == "FAILED"


def test_downstream_lineage_stops_at_the_requested_depth(known: None, read_client: APIClient) -> None:
    assert ids(get(read_client, "lineage", nodeId=RAW, depth=4, direction="downstream")) == [
        CLEAN,
        MART,
        RAW,
        AGGREGATE,
        LOAD,
    ]
    assert ids(get(read_client, "lineage", nodeId=RAW, depth=6, direction="downstream")) == [
        CLEAN,
        MART,
        RAW,
        EXPORT,
        EXPORT_JOB,
        AGGREGATE,
        LOAD,
    ]
    assert ids(get(read_client, "lineage", nodeId=MART, depth=1, direction="upstream")) == [MART, AGGREGATE]


def test_lineage_as_of_a_time_leaves_out_edges_first_seen_later(known: None, read_client: APIClient) -> None:
    body = get(read_client, "lineage", nodeId=RAW, depth=10, direction="downstream", asOf=at(T0 + timedelta(hours=1)))
    assert ids(body) == [CLEAN, RAW, LOAD]
    body = get(read_client, "lineage", nodeId=RAW, depth=10, direction="downstream", asOf=at(T0 + DAY))
    assert ids(body) == [CLEAN, MART, RAW, AGGREGATE, LOAD]


def test_a_namespace_containing_colons_and_slashes_resolves(known: None, read_client: APIClient) -> None:
    body = get(read_client, "lineage", nodeId=EXPORT, depth=2, direction="upstream")
    assert ids(body) == [MART, EXPORT, EXPORT_JOB]


def test_a_node_budget_truncates_the_graph_and_says_so(known: None, read_client: APIClient, settings: Any) -> None:
    settings.LINEAGE_MAX_NODES = 3
    body = get(read_client, "lineage", nodeId=RAW, depth=10, direction="downstream")
    assert body["truncated"] is True
    assert ids(body) == [CLEAN, RAW, LOAD]
    assert edges(body) == {(RAW, LOAD), (LOAD, CLEAN)}


# ---- column lineage ----


def test_column_lineage_shows_transformations_downstream_and_upstream(known: None, read_client: APIClient) -> None:
    field = "datasetField:db:clean.orders:amount_eur"
    body = get(read_client, "column-lineage", nodeId=field, depth=2)
    assert ids(body) == [field, "datasetField:db:mart.revenue:total", "datasetField:db:raw.orders:amount"]
    node = body["graph"][0]
    assert node["type"] == "DATASET_FIELD"
    assert node["data"] == {"namespace": "db", "dataset": "clean.orders", "name": "amount_eur", "type": "decimal(10,2)"}
    assert node["inEdges"] == [
        {
            "origin": "datasetField:db:raw.orders:amount",
            "destination": field,
            "job": LOAD,
            "transformation": "DIRECT",
            "subtype": "TRANSFORMATION",
            "indirect": False,
            **_held(node["inEdges"][0]),
        }
    ]
    assert node["outEdges"] == [
        {
            "origin": field,
            "destination": "datasetField:db:mart.revenue:total",
            "job": AGGREGATE,
            "transformation": "DIRECT",
            "subtype": "AGGREGATION",
            "indirect": False,
            **_held(node["outEdges"][0]),
        }
    ]


def test_column_lineage_upstream_includes_indirect_dependencies(known: None, read_client: APIClient) -> None:
    total = "datasetField:db:mart.revenue:total"
    body = get(read_client, "column-lineage", nodeId=total, depth=1, direction="upstream")
    assert ids(body) == ["datasetField:db:clean.orders:amount_eur", "datasetField:db:clean.orders:id", total]
    assert sorted(
        (e["origin"], e["transformation"], e["subtype"], e["indirect"]) for e in body["graph"][2]["inEdges"]
    ) == [
        ("datasetField:db:clean.orders:amount_eur", "DIRECT", "AGGREGATION", False),
        ("datasetField:db:clean.orders:id", "INDIRECT", "GROUP_BY", True),
    ]
    deeper = get(read_client, "column-lineage", nodeId=total, depth=2, direction="upstream")
    assert "datasetField:db:raw.orders:amount" in ids(deeper)
    assert "datasetField:db:raw.orders:id" in ids(deeper)


def test_column_lineage_as_of_a_time_leaves_out_later_derivations(known: None, read_client: APIClient) -> None:
    field = "datasetField:db:clean.orders:amount_eur"
    body = get(
        read_client, "column-lineage", nodeId=field, depth=3, direction="downstream", asOf=at(T0 + timedelta(hours=1))
    )
    assert ids(body) == [field]


# ---- namespaces, datasets, jobs ----


def test_namespaces_list_with_dataset_and_job_counts(known: None, read_client: APIClient) -> None:
    assert get(read_client, "namespaces") == {
        "count": 4,
        "results": [
            {"name": "airflow", "datasetCount": 0, "jobCount": 1},
            {"name": "db", "datasetCount": 3, "jobCount": 0},
            {"name": "s3://bucket", "datasetCount": 1, "jobCount": 0},
            {"name": "spark", "datasetCount": 0, "jobCount": 2},
        ],
    }


def test_datasets_list_sorted_by_namespace_and_name_with_their_latest_run(known: None, read_client: APIClient) -> None:
    body = get(read_client, "datasets")
    assert body["count"] == 4
    assert [(d["id"], d["fieldCount"], d["lastRunState"]) for d in body["results"]] == [
        (CLEAN, 3, "COMPLETED"),
        (MART, 1, "FAILED"),
        (RAW, 2, None),
        (EXPORT, 0, "ABORTED"),
    ]
    assert body["results"][0]["lastSeen"] == "2026-01-08T08:10:00.000000Z"
    assert set(body["results"][0]) == {
        "id",
        "namespace",
        "name",
        "fieldCount",
        "currentVersion",
        "lastSeen",
        "lastRunState",
    }


def test_dataset_pages_are_stable_and_filters_narrow_them(known: None, read_client: APIClient) -> None:
    page = get(read_client, "datasets", limit=2, offset=1)
    assert (page["count"], [d["id"] for d in page["results"]]) == (4, [MART, RAW])
    assert [d["id"] for d in get(read_client, "datasets", limit=2, offset=3)["results"]] == [EXPORT]
    assert [d["id"] for d in get(read_client, "datasets", q="ORD")["results"]] == [CLEAN, RAW]
    assert get(read_client, "datasets", namespace="db")["count"] == 3
    assert get(read_client, "datasets", namespace="nowhere") == {"count": 0, "results": []}


def test_dataset_detail_has_fields_versions_owners_producers_consumers_and_runs(
    known: None, read_client: APIClient
) -> None:
    body = get(read_client, "datasets/detail", nodeId=CLEAN)
    assert (body["id"], body["namespace"], body["name"]) == (CLEAN, "db", "clean.orders")
    assert body["fields"] == [
        {
            "id": "datasetField:db:clean.orders:amount_eur",
            "name": "amount_eur",
            "type": "decimal(10,2)",
            "description": None,  # the known graph's schemas send none
            "current": True,
        },
        {
            "id": "datasetField:db:clean.orders:country",
            "name": "country",
            "type": "string",
            "description": None,
            "current": True,
        },
        {"id": "datasetField:db:clean.orders:id", "name": "id", "type": "bigint", "description": None, "current": True},
    ]
    assert [(v["createdByRun"], v["fields"]) for v in body["versions"]] == [
        (RUN_A, [{"name": "id", "type": "bigint"}, {"name": "amount_eur", "type": "double"}]),
        (
            RUN_C,
            [
                {"name": "id", "type": "bigint"},
                {"name": "amount_eur", "type": "decimal(10,2)"},
                {"name": "country", "type": "string"},
            ],
        ),
    ]
    assert body["versions"][0]["firstSeen"] == "2026-01-05T08:00:00.000000Z"
    assert body["owners"] == [{"name": "team:sales", "kind": "team", "role": "MAINTAINER", "source": "event"}]
    assert body["facets"]["ownership"]["owners"] == [{"name": "team:sales", "type": "MAINTAINER"}]
    assert (body["producers"], body["consumers"]) == ([LOAD], [AGGREGATE])
    assert body["lastRuns"] == [
        {
            "runId": RUN_C,
            "job": LOAD,
            "state": "COMPLETED",
            "startedAt": "2026-01-07T08:00:00.000000Z",
            "endedAt": "2026-01-07T08:07:00.000000Z",
            "subset": None,  # wrote the whole dataset
        },
        {
            "runId": RUN_A,
            "job": LOAD,
            "state": "COMPLETED",
            "startedAt": "2026-01-05T08:00:00.000000Z",
            "endedAt": "2026-01-05T08:05:00.000000Z",
            "subset": None,  # wrote the whole dataset
        },
    ]


def test_a_schema_version_diff_lists_added_removed_and_retyped_fields_and_what_is_downstream(
    known: None, read_client: APIClient
) -> None:
    versions = [v["version"] for v in get(read_client, "datasets/detail", nodeId=CLEAN)["versions"]]
    forward = get(read_client, "datasets/versions/diff", nodeId=CLEAN, **{"from": versions[0], "to": versions[1]})
    assert forward == {
        "from": versions[0],
        "to": versions[1],
        "added": [{"name": "country", "type": "string"}],
        "removed": [],
        "changed": [{"name": "amount_eur", "fromType": "double", "toType": "decimal(10,2)"}],
        "renamed": [],
        "downstream": [MART, EXPORT],
        "truncated": False,
    }
    backward = get(read_client, "datasets/versions/diff", nodeId=CLEAN, **{"from": versions[1], "to": versions[0]})
    assert backward["removed"] == [{"name": "country", "type": "string"}] and backward["added"] == []
    assert get(read_client, "datasets/versions/diff", nodeId=CLEAN) == forward  # default: previous -> current


def test_an_unknown_schema_version_is_a_404_naming_the_parameter(known: None, read_client: APIClient) -> None:
    response = read_client.get(f"/api/v1/datasets/versions/diff?{urlencode({'nodeId': CLEAN, 'from': 'nope'})}")
    assert response.status_code == 404
    assert response.json()["path"] == "from"


def test_jobs_list_with_their_latest_run(known: None, read_client: APIClient) -> None:
    body = get(read_client, "jobs")
    assert body["count"] == 3
    assert [(j["id"], j["latestRunState"], j["latestRunTime"]) for j in body["results"]] == [
        (EXPORT_JOB, "ABORTED", "2026-01-09T08:01:00.000000Z"),
        (AGGREGATE, "FAILED", "2026-01-08T08:10:00.000000Z"),
        (LOAD, "COMPLETED", "2026-01-07T08:07:00.000000Z"),
    ]
    assert [j["id"] for j in get(read_client, "jobs", namespace="spark", q="agg")["results"]] == [AGGREGATE]


def test_job_detail_has_inputs_outputs_and_the_latest_run(known: None, read_client: APIClient) -> None:
    body = get(read_client, "jobs/detail", nodeId=LOAD)
    assert {k: body[k] for k in ("id", "namespace", "name", "inputs", "outputs", "facets")} == {
        "id": LOAD,
        "namespace": "spark",
        "name": "load_orders",
        "inputs": [RAW],
        "outputs": [CLEAN],
        "facets": {},
    }
    assert body["latestRun"] == {
        "runId": RUN_C,
        "state": "COMPLETED",
        "startedAt": "2026-01-07T08:00:00.000000Z",
        "endedAt": "2026-01-07T08:07:00.000000Z",
        "durationMs": 420000,
        "errorMessage": None,
        "cause": None,
        "classification": None,
        "verification": "UNSIGNED",
        "command": None,
    }
    assert body["latestByCommand"] == []


def test_job_runs_are_paged_newest_first(known: None, read_client: APIClient) -> None:
    body = get(read_client, "jobs/runs", nodeId=LOAD)
    assert (body["count"], [r["runId"] for r in body["results"]]) == (2, [RUN_C, RUN_A])
    assert [r["runId"] for r in get(read_client, "jobs/runs", nodeId=LOAD, limit=1, offset=1)["results"]] == [RUN_A]
    failed = get(read_client, "jobs/runs", nodeId=AGGREGATE)["results"][0]
    assert (failed["runId"], failed["state"], failed["errorMessage"]) == (RUN_D, "FAILED", "boom")


# ---- failures ----


def test_failures_list_failed_and_aborted_runs_newest_first_with_what_they_should_have_written(
    known: None, read_client: APIClient
) -> None:
    body = get(read_client, "failures")
    assert body["count"] == 2
    assert body["results"] == [
        {
            "runId": RUN_E,
            "job": EXPORT_JOB,
            "state": "ABORTED",
            "startedAt": "2026-01-09T08:00:00.000000Z",
            "endedAt": "2026-01-09T08:01:00.000000Z",
            "errorMessage": None,
            "stackTrace": None,
            "cause": None,
            "classification": "cancelled",
            "causeRunId": RUN_E,
            "parentRunId": None,
            "failedActions": [],
            "outputs": [EXPORT],
            "testedDatasets": [],
        },
        {
            "runId": RUN_D,
            "job": AGGREGATE,
            "state": "FAILED",
            "startedAt": "2026-01-08T08:00:00.000000Z",
            "endedAt": "2026-01-08T08:10:00.000000Z",
            "errorMessage": "boom",
            "stackTrace": "Traceback...\nValueError: boom",
            "cause": "ValueError: boom",
            "classification": "data_validation",
            "causeRunId": RUN_D,
            "parentRunId": None,
            "failedActions": [],
            "outputs": [MART],
            "testedDatasets": [],
        },
    ]


def test_failures_filter_by_namespace_job_and_time_range(known: None, read_client: APIClient) -> None:
    def runs(**params: Any) -> list[str]:
        return [r["runId"] for r in get(read_client, "failures", **params)["results"]]

    assert runs(namespace="spark") == [RUN_D]
    assert runs(job=EXPORT_JOB) == [RUN_E]
    assert runs(since=at(T0 + 3 * DAY + timedelta(hours=1))) == [RUN_E]
    assert runs(until=at(T0 + 3 * DAY + timedelta(hours=1))) == [RUN_D]
    assert runs(since=at(T0), until=at(T0 + 2 * DAY)) == []
    assert runs(limit=1, offset=1) == [RUN_D]


# ---- search ----


def test_search_ranks_exact_then_prefix_then_substring_shorter_names_first(known: None, read_client: APIClient) -> None:
    by_name = {"by": "name", "text": "raw.orders"}
    assert get(read_client, "search", q="orders")["results"] == [
        {"id": RAW, "type": "DATASET", "namespace": "db", "name": "raw.orders", "matched": by_name},
        {
            "id": LOAD,
            "type": "JOB",
            "namespace": "spark",
            "name": "load_orders",
            "matched": {"by": "name", "text": "load_orders"},
            "actionCount": 0,
            "application": None,
        },
        {
            "id": CLEAN,
            "type": "DATASET",
            "namespace": "db",
            "name": "clean.orders",
            "matched": {"by": "name", "text": "clean.orders"},
        },
    ]
    assert [r["id"] for r in get(read_client, "search", q="AMOUNT")["results"]] == [
        "datasetField:db:raw.orders:amount",
        "datasetField:db:clean.orders:amount_eur",
    ]
    hit = get(read_client, "search", q="total")["results"][0]
    assert hit == {
        "id": "datasetField:db:mart.revenue:total",
        "type": "DATASET_FIELD",
        "namespace": "db",
        "name": "total",
        "matched": {"by": "name", "text": "total"},
        "dataset": "mart.revenue",
        "description": None,
    }


def test_search_can_be_limited_to_some_types_and_a_count(known: None, read_client: APIClient) -> None:
    assert [r["id"] for r in get(read_client, "search", q="orders", types="dataset")["results"]] == [RAW, CLEAN]
    assert [r["id"] for r in get(read_client, "search", q="orders", limit=1)["results"]] == [RAW]
    assert [r["id"] for r in get(read_client, "search", q="e", types="job,dataset", limit=2)["results"]] == [
        EXPORT_JOB,
        EXPORT,
    ]
