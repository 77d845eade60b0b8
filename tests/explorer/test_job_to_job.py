"""Jobs linked to jobs: dependencies runs declare (`jobDependencies`) drawn as `declared` edges and listed on the
job page, current or stale by the declaring job's runs; temporary datasets left out as job -> job edges unless
asked for. Events posted through HTTP, answers read through the API."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from rest_framework.test import APIClient

from lineage_app.graph.subsets import subset_text
from tests.explorer.job_to_job import (
    EXTRACT,
    EXTRACT_ID,
    EXTRACT_RUNS,
    LOAD,
    LOAD_ID,
    LOAD_RUNS,
    ORDERS_ID,
    PARTITION_JOB_ID,
    PARTITION_RUNS,
    PUBLISH_ID,
    RAW_ID,
    STAGE_ID,
    STAGED,
    STAGED_ID,
    TEMP_ID,
    WAREHOUSE_ID,
    airflow_dag_run,
    partition_writes,
    spark_with_temporary,
    task_run,
)
from tests.time.test_time_api import post_and_apply

pytestmark = pytest.mark.django_db


def get(client: APIClient, path: str, **params: Any) -> Any:
    response = client.get(f"/api/v1/{path}?{urlencode(params)}")
    assert response.status_code == 200, response.content
    return response.json()


def edges(body: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(e["origin"], e["destination"]): e for node in body["graph"] for e in node["outEdges"]}


def test_a_declared_dependency_is_a_declared_job_to_job_edge_and_on_both_jobs_pages(
    graph: Any, ingest_client: APIClient, read_client: APIClient
) -> None:
    post_and_apply(ingest_client, airflow_dag_run())
    body = get(read_client, "lineage", nodeId=LOAD_ID, depth=2, direction="upstream", level="action")
    drawn = edges(body)
    assert drawn[(EXTRACT_ID, LOAD_ID)]["declared"] is True and drawn[(EXTRACT_ID, LOAD_ID)]["current"] is True
    # The data flow beside it: extract wrote what load read.
    assert {(EXTRACT_ID, STAGED_ID), (STAGED_ID, LOAD_ID)} <= drawn.keys()
    assert "declared" not in drawn[(STAGED_ID, LOAD_ID)]
    # Each task declared it, one from each end: one dependency per page, naming both.
    [upstream] = get(read_client, "jobs/detail", nodeId=LOAD_ID)["dependencies"]
    assert upstream == {
        "jobId": EXTRACT_ID,
        "direction": "upstream",
        "current": True,
        "declaredBy": sorted([EXTRACT_ID, LOAD_ID]),
        "dependencyType": "DIRECT_INVOCATION",
        "sequenceTriggerRule": "FINISH_TO_START",
        "statusTriggerRule": "EXECUTE_ON_SUCCESS",
    }
    [downstream] = get(read_client, "jobs/detail", nodeId=EXTRACT_ID)["dependencies"]
    assert (downstream["jobId"], downstream["direction"]) == (LOAD_ID, "downstream")
    # From extract, downstream: the declared edge is drawn even where the walk's depth did not reach load.
    body = get(read_client, "lineage", nodeId=EXTRACT_ID, depth=1, direction="downstream", level="action")
    assert edges(body)[(EXTRACT_ID, LOAD_ID)]["declared"] is True


def test_a_dependency_no_later_completed_run_declares_turns_stale_in_any_arrival_order(
    graph: Any, ingest_client: APIClient, read_client: APIClient
) -> None:
    later = [
        # Both tasks run again without declaring anything: the edge is stale from the later run's end.
        *task_run(EXTRACT_RUNS[1], EXTRACT, minutes=60, inputs=[], outputs=[STAGED]),
        *task_run(LOAD_RUNS[1], LOAD, minutes=62, inputs=[STAGED]),
    ]
    post_and_apply(ingest_client, (airflow_dag_run() + later)[::-1])
    now = get(read_client, "lineage", nodeId=LOAD_ID, depth=2, direction="upstream", level="action")
    assert (EXTRACT_ID, LOAD_ID) not in edges(now)
    with_stale = get(
        read_client, "lineage", nodeId=LOAD_ID, depth=2, direction="upstream", level="action", includeStale="true"
    )
    former = edges(with_stale)[(EXTRACT_ID, LOAD_ID)]
    assert former["declared"] is True and former["current"] is False
    # Each task's declaration is retired by its next run; the edge is stale once both are, from load's (09:03).
    assert former["staleSince"].startswith("2026-01-05T09:03:00")
    then = get(
        read_client, "lineage", nodeId=LOAD_ID, depth=2, direction="upstream", level="action", at="2026-01-05T08:30:00Z"
    )
    assert edges(then)[(EXTRACT_ID, LOAD_ID)]["declared"] is True  # it held then
    [dependency] = get(read_client, "jobs/detail", nodeId=LOAD_ID)["dependencies"]
    assert dependency["current"] is False


def test_a_temporary_dataset_is_a_job_to_job_edge_unless_asked_for(
    graph: Any, ingest_client: APIClient, read_client: APIClient
) -> None:
    post_and_apply(ingest_client, spark_with_temporary())
    body = get(read_client, "lineage", nodeId=RAW_ID, depth=6, direction="downstream")
    nodes = {node["id"] for node in body["graph"]}
    assert TEMP_ID not in nodes and {STAGE_ID, PUBLISH_ID, WAREHOUSE_ID} <= nodes
    through = edges(body)[(STAGE_ID, PUBLISH_ID)]
    assert through["via"] == [TEMP_ID] and through["current"] is True and "declared" not in through
    shown = get(read_client, "lineage", nodeId=RAW_ID, depth=6, direction="downstream", includeTemporary="true")
    data = {node["id"]: node["data"] for node in shown["graph"]}
    assert data[TEMP_ID]["temporary"] is True and data[WAREHOUSE_ID]["temporary"] is not True
    assert {(STAGE_ID, TEMP_ID), (TEMP_ID, PUBLISH_ID)} <= edges(shown).keys()
    assert (STAGE_ID, PUBLISH_ID) not in edges(shown)
    # A temporary dataset asked for by id is drawn, with its writer and reader.
    around = get(read_client, "lineage", nodeId=TEMP_ID, depth=1)
    assert {node["id"] for node in around["graph"]} == {TEMP_ID, STAGE_ID, PUBLISH_ID}


def test_a_partition_write_is_told_as_that_partition_on_the_run_the_dataset_and_the_edge(
    graph: Any, ingest_client: APIClient, read_client: APIClient
) -> None:
    post_and_apply(ingest_client, partition_writes()[::-1])
    run = get(read_client, f"jobs/runs/{PARTITION_RUNS[1]}")
    assert run["outputs"] == [ORDERS_ID]
    assert run["outputSubsets"] == [{"datasetId": ORDERS_ID, "subset": "date=2026-11-24"}]
    assert run["inputSubsets"] == []  # it read raw/orders whole
    writes = get(read_client, "datasets/detail", nodeId=ORDERS_ID)["lastRuns"]
    assert [(w["runId"], w["subset"]) for w in writes] == [
        (PARTITION_RUNS[1], "date=2026-11-24"),
        (PARTITION_RUNS[0], "date=2026-11-23"),
    ]
    body = get(read_client, "lineage", nodeId=ORDERS_ID, depth=2, direction="upstream")
    edge = edges(body)[(PARTITION_JOB_ID, ORDERS_ID)]
    assert (edge["lastSubset"], edge["lastSubsetAt"][:16]) == (
        "date=2026-11-24",
        "2026-01-06T08:05",
    )  # its COMPLETE event
    assert "lastSubset" not in edges(body)[(RAW_ID, PARTITION_JOB_ID)]


def test_a_subset_condition_reads_as_one_line() -> None:
    condition = {
        "type": "binary",
        "operator": "AND",
        "left": {
            "type": "compare",
            "comparison": "EQUAL",
            "left": {"type": "field", "field": "region"},
            "right": {"type": "literal", "value": "eu"},
        },
        "right": {"type": "location", "locations": ["s3://lake/orders/region=eu/"]},
    }
    dataset = {"outputFacets": {"subset": {"outputCondition": condition}}}
    assert subset_text(dataset, "outputs") == "(region = 'eu') AND (s3://lake/orders/region=eu/)"
    assert subset_text(dataset, "inputs") is None
