"""What the pages show of job, run and dataset facets, as the read API answers it after real producers' events."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

import pytest
from rest_framework.test import APIClient

from tests.explorer.producer_facets import (
    AIRFLOW_RUN,
    DBT_JOB_ID,
    DBT_SQL,
    SPARK_DATASET_ID,
    SPARK_RUNS,
    SPARK_WRITES,
    airflow_task_run,
    dbt_model_run,
    spark_table_writes,
)
from tests.time.test_time_api import post_and_apply

pytestmark = pytest.mark.django_db


def get(client: APIClient, path: str, **params: Any) -> Any:
    response = client.get(f"/api/v1/{path}?{urlencode(params)}" if params else f"/api/v1/{path}")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_dbt_model_s_sql_documentation_location_type_and_tags_are_on_its_job(
    graph: Any, ingest_client: APIClient, read_client: APIClient
) -> None:
    post_and_apply(ingest_client, dbt_model_run())
    facets = get(read_client, "jobs/detail", nodeId=DBT_JOB_ID)["facets"]
    assert facets["sql"]["query"] == DBT_SQL and facets["sql"]["dialect"] == "postgres"
    assert facets["sourceCodeLocation"]["pullRequestNumber"] == "418"
    assert facets["jobType"]["integration"] == "DBT"
    assert [t["key"] for t in facets["tags"]["tags"]] == ["layer", "pii"]


def test_an_airflow_task_run_keeps_its_nominal_time_tags_engine_and_parameters(
    graph: Any, ingest_client: APIClient, read_client: APIClient
) -> None:
    post_and_apply(ingest_client, airflow_task_run())
    run = get(read_client, f"jobs/runs/{quote(AIRFLOW_RUN)}")
    assert (run["nominalStartTime"], run["nominalEndTime"]) == ("2026-01-05T00:00:00Z", "2026-01-06T00:00:00Z")
    assert run["facets"]["processing_engine"]["version"] == "2.10.3"
    assert [p["key"] for p in run["facets"]["executionParameters"]["parameters"]] == ["ds", "full_refresh"]
    assert run["facets"]["externalQuery"]["externalQueryId"] == "bquxjob_5e1f_19a3"


def test_a_dataset_lists_the_rows_and_bytes_each_run_wrote_oldest_first(
    graph: Any, ingest_client: APIClient, read_client: APIClient
) -> None:
    events = spark_table_writes()
    post_and_apply(ingest_client, events[::-1])  # arrival order changes nothing
    body = get(read_client, "datasets/detail", nodeId=SPARK_DATASET_ID)
    assert [(s["runId"], s["rowCount"], s["bytes"], s["fileCount"], s["state"]) for s in body["writeStatistics"]] == [
        (run_id, rows, size, 4 + day, "COMPLETED")
        for day, (run_id, (rows, size)) in enumerate(zip(SPARK_RUNS, SPARK_WRITES, strict=True))
    ]
    assert [s["at"] for s in body["writeStatistics"]] == sorted(s["at"] for s in body["writeStatistics"])
    assert body["facets"]["storage"] == {**body["facets"]["storage"], "storageLayer": "delta", "fileFormat": "parquet"}


def test_a_dataset_no_run_sent_statistics_for_has_none(
    graph: Any, ingest_client: APIClient, read_client: APIClient
) -> None:
    post_and_apply(ingest_client, dbt_model_run())
    assert (
        get(read_client, "datasets/detail", nodeId="dataset:postgres://db:5432:analytics.orders")["writeStatistics"]
        == []
    )
