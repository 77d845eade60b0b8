"""Data quality through HTTP: Great Expectations' and dbt's test results kept per run and dataset, the quality
API and lineage badges, data-quality failures in the failure history with the tested dataset's blast radius,
and the same graph whatever order the events came in."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta
from io import StringIO
from typing import Any
from urllib.parse import urlencode

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from lineage_app.graph.writer import graph_wipe
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from tests.apply import accept
from tests.events import T0, dataset, facet, run_event
from tests.graph.identity_events import CANONICAL_ID, CATALOG, alias_events
from tests.graph_dump import graph_dump

pytestmark = pytest.mark.django_db

PG = "postgres://db.example.com:5432"
STG, FCT = f"dataset:{PG}:analytics.main.stg_orders", f"dataset:{PG}:analytics.main.fct_orders"
ORDERS = f"dataset:{PG}:public.orders"
DBT_PARENT_RUN = "0194c7a0-0000-7000-8000-000000000001"


def run_id(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def post(client: APIClient, *events: dict[str, Any]) -> None:
    for event in events:
        response = client.post("/api/v1/lineage", data=json.dumps(event), content_type="application/json")
        assert response.status_code == 201, response.content
        assert not response.json()["warnings"], response.json()


def apply_all(*, one_by_one: bool = False) -> None:
    ids = list(LineageEvent.objects.order_by("id").values_list("id", flat=True))
    for batch in [[i] for i in reversed(ids)] if one_by_one else [ids]:
        events_apply(event_ids=batch)


def get(client: APIClient, path: str, **params: Any) -> dict[str, Any]:
    response = client.get(f"{path}?{urlencode(params)}")
    assert response.status_code == 200, response.content
    return response.json()


def ge_validation(n: int, *, at: Any, null_customers: int, rows: int) -> dict[str, Any]:
    """A Great Expectations checkpoint's event as its OpenLineage validation action sends it: one COMPLETE
    event, the validated table an input with `dataQualityAssertions` and the input facet `dataQualityMetrics`."""
    orders = dataset(PG, "public.orders", fields=[("id", "integer"), ("customer_id", "integer")])
    orders["facets"]["dataQualityAssertions"] = facet(
        assertions=[
            {"assertion": "expect_table_row_count_to_be_between", "success": True},
            {
                "assertion": "expect_column_values_to_not_be_null",
                "success": null_customers == 0,
                "column": "customer_id",
            },
        ]
    )
    orders["inputFacets"] = {
        "dataQualityMetrics": facet(
            rowCount=rows,
            bytes=rows * 40,
            columnMetrics={
                "customer_id": {"nullCount": null_customers, "distinctCount": rows // 3},
                "id": {"nullCount": 0, "distinctCount": rows},
            },
        )
    }
    return run_event(
        "COMPLETE",
        run_id=run_id(n),
        job="orders_suite.orders_checkpoint",
        namespace="great_expectations",
        at=at,
        inputs=[orders],
    )


def dbt_pipeline(*, status_actual: str | None) -> list[dict[str, Any]]:
    """dbt-ol's events of `dbt build` on Postgres: the model stg_orders, fct_orders reading it, and the tests of
    stg_orders as one child run of the dbt run, its FAIL carrying `dataQualityAssertions` on its input."""
    parent = {"parent": facet(run={"runId": DBT_PARENT_RUN}, job={"namespace": "dbt", "name": "dbt-run-shop"})}
    stg = dataset(PG, "analytics.main.stg_orders", owners=["team:analytics"])
    fct = dataset(PG, "analytics.main.fct_orders", owners=["team:finance"])
    tested = dataset(PG, "analytics.main.stg_orders")
    tested["facets"]["dataQualityAssertions"] = facet(
        assertions=[
            {"assertion": "not_null", "success": True, "column": "order_id", "severity": "error"},
            {
                "assertion": "accepted_values",
                "name": "accepted_values_stg_orders_status__placed__shipped",
                "success": status_actual is None,
                "column": "status",
                "severity": "error",
                **({"actual": status_actual, "expected": "0"} if status_actual else {}),
            },
            {"assertion": "unique", "success": False, "column": "customer_id", "severity": "warn"},
        ]
    )
    models = [
        (1, "shop.main.stg_orders", [], [stg]),
        (2, "shop.main.fct_orders", [dataset(PG, "analytics.main.stg_orders")], [fct]),
    ]
    events = [
        run_event("START", run_id=DBT_PARENT_RUN, job="dbt-run-shop", namespace="dbt", at=T0),
        run_event("COMPLETE", run_id=DBT_PARENT_RUN, job="dbt-run-shop", namespace="dbt", at=T0 + timedelta(minutes=9)),
    ]
    for n, job, inputs, outputs in models:
        at = T0 + timedelta(minutes=n)
        events.append(
            run_event("START", run_id=run_id(n), job=job, namespace="dbt", at=at, inputs=inputs, run_facets=parent)
        )
        events.append(
            run_event(
                "COMPLETE",
                run_id=run_id(n),
                job=job,
                namespace="dbt",
                at=at + timedelta(seconds=30),
                inputs=inputs,
                outputs=outputs,
                run_facets=parent,
            )
        )
    test_job, at = "shop.main.stg_orders.test", T0 + timedelta(minutes=5)
    events.append(run_event("START", run_id=run_id(3), job=test_job, namespace="dbt", at=at, run_facets=parent))
    events.append(
        run_event(
            "FAIL" if status_actual else "COMPLETE",
            run_id=run_id(3),
            job=test_job,
            namespace="dbt",
            at=at + timedelta(seconds=20),
            inputs=[tested],
            run_facets=parent,
        )
    )
    return events


def test_great_expectations_results_are_kept_per_run_and_shown_as_a_history(  # type: ignore[no-untyped-def]
    graph, ingest_client, read_client
):
    post(
        ingest_client,
        ge_validation(1, at=T0, null_customers=0, rows=900),
        ge_validation(2, at=T0 + timedelta(days=1), null_customers=12, rows=960),
    )
    apply_all()

    quality = get(read_client, "/api/v1/datasets/quality", nodeId=ORDERS)
    assert quality["status"] == "failing"
    assert quality["count"] == 2
    newest, oldest = quality["results"]
    assert [newest["runId"], oldest["runId"]] == [run_id(2), run_id(1)]
    assert (newest["status"], oldest["status"]) == ("failing", "passing")
    assert newest["job"] == "job:great_expectations:orders_suite.orders_checkpoint"
    failed = [check for check in newest["checks"] if check["outcome"] == "failed"]
    assert failed == [
        {
            "facet": "dataQualityAssertions",
            "name": None,
            "assertion": "expect_column_values_to_not_be_null",
            "column": "customer_id",
            "severity": None,
            "outcome": "failed",
            "actual": None,
            "expected": None,
            "description": None,
        }
    ]
    assert newest["metrics"]["rowCount"] == 960
    assert newest["metrics"]["columns"]["customer_id"] == {
        "nullCount": 12,
        "distinctCount": 320,
        "count": None,
        "sum": None,
        "min": None,
        "max": None,
    }
    assert oldest["metrics"]["columns"]["customer_id"]["nullCount"] == 0

    # The checkpoint's run completed, but its data failed: a data-quality failure, the tested table its start.
    failures = get(read_client, "/api/v1/failures", classification="data_quality")
    assert [f["runId"] for f in failures["results"]] == [run_id(2)]
    failure = failures["results"][0]
    assert failure["state"] == "COMPLETED"
    assert failure["cause"] == "failed check: expect_column_values_to_not_be_null on customer_id (public.orders)"
    assert failure["testedDatasets"] == [ORDERS]


def test_a_failing_dbt_test_is_a_data_quality_failure_whose_blast_radius_is_the_tested_model_downstream(  # type: ignore[no-untyped-def]
    graph, ingest_client, read_client
):
    post(ingest_client, *dbt_pipeline(status_actual="3"))
    apply_all()

    groups = get(read_client, "/api/v1/failures/jobs", classification="data_quality")["results"]
    assert [group["job"] for group in groups] == ["job:dbt:shop.main.stg_orders.test"]
    last = groups[0]["lastFailure"]
    assert last["classification"] == "data_quality"
    assert last["state"] == "FAILED"
    # The cause names the failing check, its column and values; the warning (unique, severity warn) is no cause.
    assert last["cause"] == (
        "failed check: accepted_values_stg_orders_status__placed__shipped on status: actual 3, expected 0 "
        "(analytics.main.stg_orders)"
    )
    assert last["testedDatasets"] == [STG]
    assert last["outputs"] == []  # the test job writes nothing: its blast radius is the tested model's
    blast = groups[0]["blastRadius"]
    assert [(d["id"], d["distance"], d["owners"]) for d in blast["datasets"]] == [
        (STG, 0, ["team:analytics"]),
        (FCT, 2, ["team:finance"]),
    ]
    assert blast["owners"] == ["team:analytics", "team:finance"]

    quality = get(read_client, "/api/v1/datasets/quality", nodeId=STG)
    assert quality["status"] == "failing"
    outcomes = {check["assertion"]: check["outcome"] for check in quality["results"][0]["checks"]}
    assert outcomes == {"not_null": "passed", "accepted_values": "failed", "unique": "warned"}

    lineage = get(read_client, "/api/v1/lineage", nodeId=FCT, depth=4, direction="upstream", level="action")
    badges = {node["id"]: node["data"].get("quality") for node in lineage["graph"]}
    assert badges[STG] == "failing"
    assert badges[FCT] == "unknown"  # never checked
    assert all(badge is None for node_id, badge in badges.items() if node_id.startswith("job:"))


def test_a_failing_check_of_severity_warn_warns_and_is_no_failure(graph, ingest_client, read_client):  # type: ignore[no-untyped-def]
    post(ingest_client, *dbt_pipeline(status_actual=None))  # only `unique` (severity warn) fails
    apply_all()

    assert get(read_client, "/api/v1/datasets/quality", nodeId=STG)["status"] == "warning"
    assert get(read_client, "/api/v1/failures")["count"] == 0
    run = get(read_client, f"/api/v1/jobs/runs/{run_id(3)}")
    assert (run["state"], run.get("failureClass")) == ("COMPLETED", None)


def test_test_run_facet_results_count_for_the_runs_input(graph, ingest_client, read_client):  # type: ignore[no-untyped-def]
    tests = facet(
        tests=[
            {"name": "orders_not_empty", "status": "pass", "severity": "error", "type": "row_count"},
            {
                "name": "orders_amount_positive",
                "status": "fail",
                "severity": "error",
                "type": "custom_sql",
                "expected": "0",
                "actual": "17",
                "content": "SELECT count(*) FROM orders WHERE amount < 0",
                "contentType": "sql",
            },
            {"name": "orders_fresh", "status": "skip", "type": "freshness"},
        ]
    )
    orders = dataset(PG, "public.orders")
    post(
        ingest_client,
        run_event("START", run_id=run_id(7), job="orders_tests", at=T0, inputs=[orders]),
        run_event(
            "FAIL",
            run_id=run_id(7),
            job="orders_tests",
            at=T0 + timedelta(minutes=1),
            inputs=[orders],
            run_facets={"test": tests},
        ),
    )
    apply_all()

    quality = get(read_client, "/api/v1/datasets/quality", nodeId=ORDERS)
    assert quality["status"] == "failing"
    assert [(c["name"], c["facet"], c["outcome"]) for c in quality["results"][0]["checks"]] == [
        ("orders_not_empty", "test", "passed"),
        ("orders_amount_positive", "test", "failed"),
        ("orders_fresh", "test", "skipped"),
    ]
    failure = get(read_client, "/api/v1/failures")["results"][0]
    assert failure["classification"] == "data_quality"
    assert failure["cause"] == "failed check: orders_amount_positive: actual 17, expected 0 (public.orders)"


def test_a_quality_facet_that_fails_its_schema_is_reported_and_costs_nothing_else(  # type: ignore[no-untyped-def]
    graph, ingest_client, read_client
):
    orders = dataset(PG, "public.orders")
    orders["facets"]["dataQualityAssertions"] = facet(assertions=[{"assertion": "not_null", "success": "no"}])
    event = run_event("COMPLETE", run_id=run_id(8), job="checks", at=T0, inputs=[orders])
    response = ingest_client.post("/api/v1/lineage", data=json.dumps(event), content_type="application/json")
    assert response.status_code == 201, response.content
    assert [w["path"] for w in response.json()["warnings"]] == ["inputs[0].facets.dataQualityAssertions"]
    apply_all()

    quality = get(read_client, "/api/v1/datasets/quality", nodeId=ORDERS)
    assert (quality["status"], quality["count"]) == ("unknown", 0)
    assert get(read_client, f"/api/v1/jobs/runs/{run_id(8)}")["inputs"] == [ORDERS]


def test_an_unknown_dataset_has_no_quality_and_says_so(graph, read_client):  # type: ignore[no-untyped-def]
    response = read_client.get("/api/v1/datasets/quality?" + urlencode({"nodeId": "dataset:nowhere:none"}))
    assert response.status_code == 404
    assert "dataset:nowhere:none" in json.dumps(response.json())


def test_quality_is_the_same_whatever_order_the_events_came_in_and_after_rebuild(  # type: ignore[no-untyped-def]
    graph, ingest_client, read_client
):
    post(
        ingest_client,
        *dbt_pipeline(status_actual="3"),
        ge_validation(11, at=T0, null_customers=0, rows=900),
        ge_validation(12, at=T0 + timedelta(days=1), null_customers=12, rows=960),
    )
    apply_all(one_by_one=True)  # newest first, one event per batch
    reversed_order = graph_dump()
    answers = [get(read_client, "/api/v1/datasets/quality", nodeId=node) for node in (STG, ORDERS)]

    call_command("rebuild_graph", "--no-progress", "--batch-size", "3", stdout=StringIO())
    rebuilt = graph_dump()
    assert rebuilt == reversed_order
    assert [get(read_client, "/api/v1/datasets/quality", nodeId=node) for node in (STG, ORDERS)] == answers


def test_impact_reports_and_their_exports_carry_each_datasets_quality(  # type: ignore[no-untyped-def]
    graph, ingest_client, read_client
):
    post(ingest_client, *dbt_pipeline(status_actual="3"))
    apply_all()
    # What changing the staging model's job affects: the failing staging table, and the fact table after it.
    params = {"nodeId": "job:dbt:shop.main.stg_orders", "depth": 4, "level": "action"}

    response = read_client.get("/api/v1/impact", params)
    assert response.status_code == 200
    answer = json.loads(b"".join(response.streaming_content))
    quality = {asset["id"]: asset.get("quality") for asset in answer["assets"]}
    assert (quality[STG], quality[FCT]) == ("failing", "unknown")
    assert all(status is None for node_id, status in quality.items() if node_id.startswith("job:"))

    response = read_client.get("/api/v1/impact/report", {**params, "format": "csv"})
    assert response.status_code == 200, response.content
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert {row["id"]: row["quality"] for row in rows if row["type"] == "DATASET"} == {STG: "failing", FCT: "unknown"}

    response = read_client.get("/api/v1/impact/report", {**params, "format": "html"})
    html = b"".join(response.streaming_content).decode()
    assert '<td class="failing">failing</td>' in html


def test_an_application_whose_action_failed_its_checks_is_found_as_a_data_quality_failure(  # type: ignore[no-untyped-def]
    graph, ingest_client, read_client
):
    app_run, action_run = run_id(20), run_id(21)
    orders = dataset("file", "/lake/bronze/orders")
    orders["facets"]["dataQualityAssertions"] = facet(
        assertions=[{"assertion": "non_negative", "column": "amount", "success": False, "actual": "1", "expected": "0"}]
    )
    parent = {"parent": facet(run={"runId": app_run}, job={"namespace": "spark", "name": "validate_orders"})}
    error = {"errorMessage": facet(message="ValueError: negative amount", programmingLanguage="PYTHON")}
    post(
        ingest_client,
        run_event("START", run_id=app_run, job="validate_orders", at=T0),
        run_event(
            "FAIL",
            run_id=action_run,
            job="validate_orders.write_parquet.orders_checked",
            at=T0 + timedelta(seconds=30),
            inputs=[orders],
            outputs=[dataset("file", "/lake/quality/orders_checked")],
            run_facets={**parent, **error},
        ),
        run_event("FAIL", run_id=app_run, job="validate_orders", at=T0 + timedelta(minutes=1), run_facets=error),
    )
    apply_all()

    found = get(read_client, "/api/v1/failures", classification="data_quality")["results"]
    assert {(f["runId"], f["classification"]) for f in found} == {
        (app_run, "data_validation"),  # its own error classifies it; its action's check finds it
        (action_run, "data_quality"),
    }
    groups = get(read_client, "/api/v1/failures/jobs", classification="data_quality")["results"]
    assert [group["job"] for group in groups] == ["job:spark:validate_orders"]


def test_checks_of_a_table_named_by_its_catalog_name_move_to_its_canonical_dataset(  # type: ignore[no-untyped-def]
    graph, read_client
):
    by_catalog = dataset(*CATALOG)
    by_catalog["facets"]["dataQualityAssertions"] = facet(
        assertions=[{"assertion": "not_null", "column": "id", "success": False, "severity": "error"}]
    )
    check = run_event("COMPLETE", run_id=run_id(30), job="orders.check", at=T0, inputs=[by_catalog])
    events = [check, *alias_events()]
    answers, dumps = [], []
    for batches in ([[0], [1], [2], [3], [4], [5]], [[0, 1, 2, 3, 4, 5]]):  # the check before the symlink; all at once
        graph_wipe()
        LineageEvent.objects.all().delete()
        ids = accept(*events)
        for batch in batches:
            events_apply(event_ids=[ids[i] for i in batch])
        dumps.append(graph_dump())
        answers.append(get(read_client, "/api/v1/datasets/quality", nodeId=f"dataset:{CATALOG[0]}:{CATALOG[1]}"))
    assert dumps[0] == dumps[1]
    assert answers[0] == answers[1]
    assert (answers[0]["id"], answers[0]["status"], answers[0]["count"]) == (CANONICAL_ID, "failing", 1)
