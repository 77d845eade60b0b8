"""Failure forensics through the read API: root causes, the classification filter, failures grouped by job
(streaks, blast radius), and application runs headlined by the action run that carries the error."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from rest_framework.test import APIClient

from tests.apply import accept_and_apply
from tests.events import T0, dataset, facet, run_event

pytestmark = pytest.mark.django_db

TRACES = Path(__file__).resolve().parent.parent / "graph" / "traces"
DAY = timedelta(days=1)
NEGATIVE_AMOUNT = "java.lang.RuntimeException: negative amount in order 250"
PATH_NOT_FOUND = (
    "pyspark.errors.exceptions.captured.AnalysisException: [PATH_NOT_FOUND] Path does not exist: "
    "file:/tmp/ff/gdata/lake/bronze/orders."
)

LOAD, AGGREGATE, EXPORT_JOB = "job:spark:load_orders", "job:spark:aggregate", "job:airflow:export"
VALIDATE, VALIDATE_WRITE = "job:spark:validate_orders", "job:spark:validate_orders.write_parquet.orders_checked"
REPORT_JOB = "job:spark:quality_report"
RAW, CLEAN, MART = "dataset:db:raw.orders", "dataset:db:clean.orders", "dataset:db:mart.revenue"
EXPORT = "dataset:s3://bucket:exports/revenue.csv"
CHECKED, QUALITY = "dataset:db:quality.orders_checked", "dataset:db:quality.report"


def run_id(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def error(case: str, language: str = "PYTHON") -> dict[str, Any]:
    return {
        "errorMessage": facet(
            message=(TRACES / f"{case}.message.txt").read_text(),
            programmingLanguage=language,
            stackTrace=(TRACES / f"{case}.stack.txt").read_text(),
        )
    }


def lifecycle(
    n: int,
    job: str,
    *,
    at: Any,
    end: str = "COMPLETE",
    namespace: str = "spark",
    inputs: list[dict[str, Any]] | None = None,
    outputs: list[dict[str, Any]] | None = None,
    end_facets: dict[str, Any] | None = None,
    facets: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    return [
        run_event(
            "START",
            run_id=run_id(n),
            job=job,
            namespace=namespace,
            at=at,
            inputs=inputs,
            outputs=outputs,
            run_facets=facets,
        ),
        run_event(
            end,
            run_id=run_id(n),
            job=job,
            namespace=namespace,
            at=at + timedelta(minutes=5),
            inputs=inputs,
            outputs=outputs,
            run_facets={**(facets or {}), **(end_facets or {})},
        ),
    ]


def build_failures() -> None:
    """raw.orders -load_orders-> clean.orders -aggregate-> mart.revenue -export-> exports/revenue.csv, and
    the Spark application validate_orders whose action writes quality.orders_checked -quality_report->
    quality.report.

    load_orders: ok (day 0), then fails for a missing input on days 1, 2 and 3 (runs 2-4).
    aggregate: out of memory on day 0 (run 5), ok on day 1 (run 6).
    validate_orders: fails on day 2 (run 7) with only `SystemExit: 1` of its own; its action (run 8)
    carries the example pipeline's real error. export: aborted on day 4 (run 9), no error.
    """
    raw = dataset("db", "raw.orders")
    clean = dataset("db", "clean.orders", owners=["team:sales"])
    mart = dataset("db", "mart.revenue", owners=["team:finance"])
    checked = dataset("db", "quality.orders_checked")
    quality = dataset("db", "quality.report", owners=["user:ana"])
    parent = {"parent": facet(run={"runId": run_id(7)}, job={"namespace": "spark", "name": "validate_orders"})}
    missing = error("path_not_found_app")
    accept_and_apply(
        *lifecycle(1, "load_orders", at=T0, inputs=[raw], outputs=[clean]),
        *lifecycle(2, "load_orders", at=T0 + DAY, end="FAIL", inputs=[raw], outputs=[clean], end_facets=missing),
        *lifecycle(3, "load_orders", at=T0 + 2 * DAY, end="FAIL", inputs=[raw], outputs=[clean], end_facets=missing),
        *lifecycle(4, "load_orders", at=T0 + 3 * DAY, end="FAIL", inputs=[raw], outputs=[clean], end_facets=missing),
        *lifecycle(
            5,
            "aggregate",
            at=T0,
            end="FAIL",
            inputs=[clean],
            outputs=[mart],
            end_facets=error("oom_heap_space_action", "JAVA"),
        ),
        *lifecycle(6, "aggregate", at=T0 + DAY, inputs=[clean], outputs=[mart]),
        *lifecycle(
            7,
            "validate_orders",
            at=T0 + 2 * DAY + timedelta(hours=1),
            end="FAIL",
            end_facets={"errorMessage": facet(message="SystemExit: 1", programmingLanguage="PYTHON")},
        ),
        *lifecycle(
            8,
            "validate_orders.write_parquet.orders_checked",
            at=T0 + 2 * DAY + timedelta(hours=1),
            end="FAIL",
            inputs=[raw],
            outputs=[checked],
            facets=parent,
            end_facets=error("example_validate_orders_action", "JAVA"),
        ),
        *lifecycle(10, "quality_report", at=T0, inputs=[checked], outputs=[quality]),
        *lifecycle(
            9,
            "export",
            namespace="airflow",
            at=T0 + 4 * DAY,
            end="ABORT",
            inputs=[mart],
            outputs=[dataset("s3://bucket", "exports/revenue.csv")],
        ),
    )


@pytest.fixture
def failures(graph: Any) -> None:
    build_failures()


def get(client: APIClient, path: str, **params: Any) -> Any:
    response = client.get(f"/api/v1/{path}?{urlencode(params)}")
    assert response.status_code == 200, response.content
    return response.json()


def test_each_failure_is_headlined_by_its_root_cause_and_classification(failures: None, read_client: APIClient) -> None:
    body = get(read_client, "failures")
    assert body["count"] == 7
    headline = [(r["runId"], r["job"], r["cause"], r["classification"], r["causeRunId"]) for r in body["results"]]
    assert headline == [
        (run_id(9), EXPORT_JOB, None, "cancelled", run_id(9)),
        (run_id(4), LOAD, PATH_NOT_FOUND, "missing_input", run_id(4)),
        (run_id(7), VALIDATE, NEGATIVE_AMOUNT, "data_validation", run_id(8)),  # its action's error
        (run_id(8), VALIDATE_WRITE, NEGATIVE_AMOUNT, "data_validation", run_id(8)),
        (run_id(3), LOAD, PATH_NOT_FOUND, "missing_input", run_id(3)),
        (run_id(2), LOAD, PATH_NOT_FOUND, "missing_input", run_id(2)),
        (run_id(5), AGGREGATE, "java.lang.OutOfMemoryError: Java heap space", "out_of_memory", run_id(5)),
    ]
    application = body["results"][2]
    assert (application["errorMessage"], application["failedActions"], application["parentRunId"]) == (
        "SystemExit: 1",
        [VALIDATE_WRITE],
        None,
    )
    assert application["outputs"] == [CHECKED]  # what its action should have written
    assert body["results"][3]["parentRunId"] == run_id(7)
    assert body["results"][1]["stackTrace"].startswith("Traceback (most recent call last):")


def test_failures_filter_by_classification(failures: None, read_client: APIClient) -> None:
    def runs(classification: str, **params: Any) -> list[str]:
        found = get(read_client, "failures", classification=classification, **params)
        assert found["count"] == len(found["results"]) or params
        return [r["runId"] for r in found["results"]]

    assert runs("missing_input") == [run_id(4), run_id(3), run_id(2)]
    assert runs("data_validation") == [run_id(7), run_id(8)]
    assert runs("cancelled") == [run_id(9)]
    assert runs("out_of_memory") == [run_id(5)]
    assert runs("schema") == runs("permission") == runs("unknown") == []
    assert runs("missing_input", limit=1, offset=1) == [run_id(3)]
    assert get(read_client, "failures", classification="missing_input", limit=1)["count"] == 3


def test_an_unknown_classification_is_a_400_naming_the_parameter(failures: None, read_client: APIClient) -> None:
    for path in ("failures", "failures/jobs"):
        response = read_client.get(f"/api/v1/{path}?classification=flaky")
        assert response.status_code == 400, response.content
        assert (response.json()["error"], response.json()["path"]) == ("invalid", "classification")


def test_failures_group_by_job_with_the_current_streak_and_the_last_cause(
    failures: None, read_client: APIClient
) -> None:
    body = get(read_client, "failures/jobs")
    assert body["count"] == 4  # the action run failed with its application: told under validate_orders
    groups = {g["job"]: g for g in body["results"]}
    assert [g["job"] for g in body["results"]] == [EXPORT_JOB, LOAD, VALIDATE, AGGREGATE]
    load = groups[LOAD]
    assert (load["failureCount"], load["consecutiveFailures"], load["failingSince"], load["latestRunState"]) == (
        3,
        3,
        "2026-01-06T08:00:00.000000Z",
        "FAILED",
    )
    assert (load["lastFailure"]["runId"], load["lastFailure"]["cause"], load["lastFailure"]["classification"]) == (
        run_id(4),
        PATH_NOT_FOUND,
        "missing_input",
    )
    aggregate = groups[AGGREGATE]  # recovered since
    assert (
        aggregate["failureCount"],
        aggregate["consecutiveFailures"],
        aggregate["failingSince"],
        aggregate["latestRunState"],
    ) == (1, 0, None, "COMPLETED")
    assert aggregate["lastFailure"]["classification"] == "out_of_memory"
    validate = groups[VALIDATE]
    assert (
        validate["consecutiveFailures"],
        validate["lastFailure"]["cause"],
        validate["lastFailure"]["causeRunId"],
    ) == (1, NEGATIVE_AMOUNT, run_id(8))
    export = groups[EXPORT_JOB]
    assert (export["consecutiveFailures"], export["lastFailure"]["classification"]) == (1, "cancelled")
    assert not any(g["consecutiveFailuresCapped"] for g in body["results"])


def test_the_blast_radius_is_what_the_failure_should_have_written_and_everything_downstream_with_owners(
    failures: None, read_client: APIClient
) -> None:
    groups = {g["job"]: g for g in get(read_client, "failures/jobs")["results"]}
    load = groups[LOAD]["blastRadius"]
    assert [(d["id"], d["distance"], d["owners"]) for d in load["datasets"]] == [
        (CLEAN, 0, ["team:sales"]),
        (MART, 2, ["team:finance"]),
        (EXPORT, 4, []),
    ]
    assert (load["owners"], load["total"], load["truncated"], load["depth"]) == (
        ["team:finance", "team:sales"],
        3,
        False,
        6,
    )
    validate = groups[VALIDATE]["blastRadius"]  # through the failed action's output
    assert [(d["id"], d["distance"], d["owners"]) for d in validate["datasets"]] == [
        (CHECKED, 0, []),
        (QUALITY, 2, ["user:ana"]),
    ]
    assert groups[EXPORT_JOB]["blastRadius"]["datasets"][0]["id"] == EXPORT


def test_grouped_failures_filter_like_the_list_and_page(failures: None, read_client: APIClient) -> None:
    def jobs(**params: Any) -> list[str]:
        return [g["job"] for g in get(read_client, "failures/jobs", **params)["results"]]

    assert jobs(classification="data_validation") == [VALIDATE]
    assert jobs(classification="out_of_memory") == [AGGREGATE]
    assert jobs(namespace="airflow") == [EXPORT_JOB]
    assert jobs(job=LOAD) == [LOAD]
    assert jobs(until="2026-01-07T09:00:00Z") == [LOAD, AGGREGATE]  # load_orders' failure of day 2 is its last
    assert jobs(limit=2, offset=1) == [LOAD, VALIDATE]
    in_window = get(read_client, "failures/jobs", until="2026-01-07T09:00:00Z")["results"][0]
    assert (in_window["lastFailure"]["runId"], in_window["failureCount"], in_window["consecutiveFailures"]) == (
        run_id(3),
        2,
        3,
    )  # the streak is the job's, whatever the window


def test_a_run_history_shows_the_cause_of_failed_runs(failures: None, read_client: APIClient) -> None:
    runs = get(read_client, "jobs/runs", nodeId=AGGREGATE)["results"]
    assert [(r["state"], r["cause"], r["classification"]) for r in runs] == [
        ("COMPLETED", None, None),
        ("FAILED", "java.lang.OutOfMemoryError: Java heap space", "out_of_memory"),
    ]


def test_the_openapi_schema_documents_causes_the_filter_and_the_grouped_view(read_client: APIClient) -> None:
    response = read_client.get("/api/v1/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    schema = response.json()
    parameters = {p["name"] for p in schema["paths"]["/api/v1/failures"]["get"]["parameters"]}
    assert {"classification", "namespace", "job", "since", "until"} <= parameters
    grouped = {p["name"] for p in schema["paths"]["/api/v1/failures/jobs"]["get"]["parameters"]}
    assert parameters == grouped
    components = schema["components"]["schemas"]
    assert {"cause", "classification", "causeRunId", "parentRunId", "failedActions"} <= set(
        components["FailureList"]["properties"]
    )
    assert {"failingSince", "consecutiveFailures", "lastFailure", "blastRadius"} <= set(
        components["FailureJobList"]["properties"]
    )
