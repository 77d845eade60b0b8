"""The application level rolls up only an application's internal steps (a Spark application's actions), never an
orchestrator's (a dbt run's models, an Airflow DAG's tasks): rolled up, an orchestrator run would stand as one job
reading and writing its own intermediates. Parent chains shaped as openlineage-dbt and the Airflow provider send
them, with the Spark agent's under a task."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from rest_framework.test import APIClient

from tests.apply import accept_and_apply
from tests.events import dataset
from tests.explorer.application_graph import job_type, parent, run

pytestmark = pytest.mark.django_db

DUCKDB = "duckdb:///srv/dbt/jaffle.duckdb"
SEED, STAGING, FACT = (f"dataset:{DUCKDB}:jaffle.main.{name}" for name in ("raw_orders", "stg_orders", "fct_orders"))
DBT_RUN, STG_MODEL, FCT_MODEL = (
    "job:dbt:dbt-run-jaffle_shop",
    "job:dbt:jaffle_shop.model.stg_orders",
    "job:dbt:jaffle_shop.model.fct_orders",
)
DAG, TASK = "job:airflow:nightly", "job:airflow:nightly.transform"
SPARK_APP, ACTION = "job:spark:transform_orders", "job:spark:transform_orders.execute_insert_into.orders_out"
ORPHAN_APP, ORPHAN_ACTION = "job:spark:backfill", "job:spark:backfill.execute_save.orders_backfill"
LAKE_IN, LAKE_OUT, BACKFILL = (
    "dataset:s3://lake:raw/orders",
    "dataset:s3://lake:clean/orders",
    "dataset:s3://lake:clean/orders_backfill",
)


def table(name: str) -> dict[str, Any]:
    return dataset(DUCKDB, f"jaffle.main.{name}", fields=[("order_id", "integer"), ("status", "varchar")])


def ids(n: int) -> str:
    return f"00000000-0000-4000-8000-000000000d{n:02d}"


@pytest.fixture
def orchestrated(graph: Any) -> None:
    dbt, model = job_type("DBT", "JOB"), job_type("DBT", "MODEL")
    dag_task = job_type("AIRFLOW", "TASK")
    accept_and_apply(
        # `dbt-ol run`: the run job, then each model as its child.
        *run(ids(1), "dbt-run-jaffle_shop", namespace="dbt", typed=dbt),
        *run(
            ids(2),
            "jaffle_shop.model.stg_orders",
            namespace="dbt",
            minutes=1,
            parent_of=parent(ids(1), "dbt", "dbt-run-jaffle_shop", root=(ids(1), "dbt", "dbt-run-jaffle_shop")),
            typed=model,
            inputs=[table("raw_orders")],
            outputs=[table("stg_orders")],
        ),
        *run(
            ids(3),
            "jaffle_shop.model.fct_orders",
            namespace="dbt",
            minutes=2,
            parent_of=parent(ids(1), "dbt", "dbt-run-jaffle_shop", root=(ids(1), "dbt", "dbt-run-jaffle_shop")),
            typed=model,
            inputs=[table("stg_orders")],
            outputs=[table("fct_orders")],
        ),
        # An Airflow DAG whose task runs a Spark application, whose action does the work.
        *run(ids(4), "nightly", namespace="airflow", minutes=10, typed=job_type("AIRFLOW", "DAG")),
        *run(
            ids(5),
            "nightly.transform",
            namespace="airflow",
            minutes=11,
            parent_of=parent(ids(4), "airflow", "nightly", root=(ids(4), "airflow", "nightly")),
            typed=dag_task,
        ),
        *run(
            ids(6),
            "transform_orders",
            minutes=12,
            parent_of=parent(ids(5), "airflow", "nightly.transform", root=(ids(4), "airflow", "nightly")),
            typed=job_type("SPARK", "APPLICATION"),
        ),
        *run(
            ids(7),
            "transform_orders.execute_insert_into.orders_out",
            minutes=13,
            parent_of=parent(ids(6), "spark", "transform_orders", root=(ids(4), "airflow", "nightly")),
            typed=job_type("SPARK", "SQL_JOB"),
            inputs=[dataset("s3://lake", "raw/orders")],
            outputs=[dataset("s3://lake", "clean/orders")],
        ),
        # A Spark action whose application sent no event of its own: known only as its parent.
        *run(
            ids(8),
            "backfill.execute_save.orders_backfill",
            minutes=20,
            parent_of=parent(ids(9), "spark", "backfill"),
            typed=job_type("SPARK", "SQL_JOB"),
            inputs=[dataset("s3://lake", "raw/orders")],
            outputs=[dataset("s3://lake", "clean/orders_backfill")],
        ),
    )


def lineage(client: APIClient, **params: Any) -> dict[str, Any]:
    response = client.get(f"/api/v1/lineage?{urlencode(params)}")
    assert response.status_code == 200, response.content
    return response.json()


def drawn(body: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], set[tuple[str, str]]]:
    nodes = {node["id"]: node["data"] for node in body["graph"]}
    edges = {(e["origin"], e["destination"]) for node in body["graph"] for e in node["outEdges"]}
    return nodes, edges


def no_job_reads_what_it_writes(edges: set[tuple[str, str]]) -> bool:
    reads = {(job, source) for source, job in edges if job.startswith("job:")}
    return not any((job, target) in reads for job, target in edges if job.startswith("job:"))


@pytest.mark.parametrize("level", ["application", "action"])
def test_a_dbt_run_draws_its_models_with_their_tables_between_them_and_no_loop(
    orchestrated: None, read_client: APIClient, level: str
) -> None:
    nodes, edges = drawn(lineage(read_client, nodeId=FACT, depth=6, direction="upstream", level=level))
    assert set(nodes) == {FACT, FCT_MODEL, STAGING, STG_MODEL, SEED}
    assert edges == {(SEED, STG_MODEL), (STG_MODEL, STAGING), (STAGING, FCT_MODEL), (FCT_MODEL, FACT)}
    assert no_job_reads_what_it_writes(edges)
    assert not any("application" in data for data in nodes.values())


def test_the_dbt_run_job_is_no_application_of_its_models(orchestrated: None, read_client: APIClient) -> None:
    nodes, _ = drawn(lineage(read_client, nodeId=DBT_RUN, depth=2, direction="downstream"))
    assert set(nodes) == {DBT_RUN}
    assert not nodes[DBT_RUN].get("actions")


@pytest.mark.parametrize("level", ["application", "action"])
def test_an_airflow_task_running_a_spark_application_rolls_up_only_the_spark_actions(
    orchestrated: None, read_client: APIClient, level: str
) -> None:
    nodes, edges = drawn(lineage(read_client, nodeId=LAKE_OUT, depth=2, direction="upstream", level=level))
    job = SPARK_APP if level == "application" else ACTION
    assert set(nodes) == {LAKE_OUT, job, LAKE_IN}
    assert edges == {(LAKE_IN, job), (job, LAKE_OUT)}
    if level == "application":
        assert nodes[SPARK_APP]["actions"] == [ACTION]
        assert "application" not in nodes[SPARK_APP]  # not folded into the Airflow task that ran it
    else:
        assert nodes[ACTION]["application"] == SPARK_APP
    assert not {DAG, TASK} & set(nodes)


def test_a_spark_application_known_only_as_its_actions_parent_still_rolls_them_up(
    orchestrated: None, read_client: APIClient
) -> None:
    nodes, edges = drawn(lineage(read_client, nodeId=BACKFILL, depth=2, direction="upstream"))
    assert set(nodes) == {BACKFILL, ORPHAN_APP, LAKE_IN}
    assert edges == {(LAKE_IN, ORPHAN_APP), (ORPHAN_APP, BACKFILL)}
    assert nodes[ORPHAN_APP]["actions"] == [ORPHAN_ACTION]


def test_impact_of_a_seed_names_the_models_not_the_dbt_run(orchestrated: None, read_client: APIClient) -> None:
    response = read_client.get(f"/api/v1/impact?{urlencode({'nodeId': SEED, 'depth': 6})}")
    assert response.status_code == 200, response.content
    named = b"".join(response.streaming_content).decode()
    assert STG_MODEL in named and FCT_MODEL in named and FACT in named
    assert DBT_RUN not in named
