"""A pipeline of application jobs and their action jobs (OpenLineage ParentRunFacet), built through ingestion.

    spark application daily_revenue (run APP_RUN), whose action runs are its children:
      bronze/orders --daily_revenue.write_parquet.orders_clean--> silver/orders_clean
      silver/orders_clean --daily_revenue.create_table.daily_revenue--> gold/daily_revenue
    gold/daily_revenue --publish_report (no parent, no children)--> reports/revenue.csv
    airflow DAG nightly_export (run DAG_RUN, known only as the tasks' parent):
      gold/daily_revenue --nightly_export.upload--> s3://exports revenue.parquet

Action events carry the parent facet on every event, and every job its `jobType` facet, as the Spark agent
and Airflow send them: the application APPLICATION and its actions SQL_JOB (integration SPARK), the DAG's task
TASK (integration AIRFLOW).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from tests.apply import accept_and_apply
from tests.events import T0, dataset, facet, run_event

APP_RUN = "00000000-0000-4000-8000-0000000000a1"
WRITE_RUN = "00000000-0000-4000-8000-0000000000a2"
TABLE_RUN = "00000000-0000-4000-8000-0000000000a3"
PUBLISH_RUN = "00000000-0000-4000-8000-0000000000a4"
DAG_RUN = "00000000-0000-4000-8000-0000000000b1"
UPLOAD_RUN = "00000000-0000-4000-8000-0000000000b2"

LAKE = "/tmp/x/lake"
BRONZE, SILVER, GOLD = (
    f"dataset:file:{LAKE}/bronze/orders",
    f"dataset:file:{LAKE}/silver/orders_clean",
    f"dataset:file:{LAKE}/gold/daily_revenue",
)
REPORT = "dataset:file:/tmp/x/reports/revenue.csv"
EXPORT = "dataset:s3://exports:revenue.parquet"
APP = "job:spark:daily_revenue"
WRITE = "job:spark:daily_revenue.write_parquet.orders_clean"
TABLE = "job:spark:daily_revenue.create_table.daily_revenue"
PUBLISH = "job:spark:publish_report"
DAG = "job:airflow:nightly_export"
UPLOAD = "job:airflow:nightly_export.upload"


def lake(name: str) -> dict[str, Any]:
    return dataset("file", f"{LAKE}/{name}", fields=[("id", "bigint"), ("amount", "double")])


def parent(run_id: str, namespace: str, name: str, *, root: tuple[str, str, str] | None = None) -> dict[str, Any]:
    """The ParentRunFacet naming run `run_id` of job `namespace`:`name`, and with `root` (run id, namespace, name)
    the chain's root run (ParentRunFacet 1-1-0), as the Airflow provider and the Spark integration send it."""
    root_part = {"root": {"run": {"runId": root[0]}, "job": {"namespace": root[1], "name": root[2]}}} if root else {}
    return {"parent": facet(run={"runId": run_id}, job={"namespace": namespace, "name": name}, **root_part)}


def job_type(integration: str, kind: str) -> dict[str, Any]:
    return {"jobType": facet(processingType="BATCH", integration=integration, jobType=kind)}


def run(
    run_id: str,
    job: str,
    *,
    namespace: str = "spark",
    minutes: int = 0,
    parent_of: dict[str, Any] | None = None,
    typed: dict[str, Any] | None = None,
    inputs: list[dict[str, Any]] | None = None,
    outputs: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """A run's START and COMPLETE, both with the parent facet when it has one and the job's `typed` facet."""
    at = T0 + timedelta(minutes=minutes)
    events = [
        run_event(
            kind,
            run_id=run_id,
            job=job,
            namespace=namespace,
            at=moment,
            inputs=inputs,
            outputs=outputs,
            run_facets=parent_of,
        )
        for kind, moment in (("START", at), ("COMPLETE", at + timedelta(minutes=1)))
    ]
    for event in events:
        event["job"]["facets"].update(typed or {})
    return events


def build_application_graph() -> None:
    app = parent(APP_RUN, "spark", "daily_revenue")
    dag = parent(DAG_RUN, "airflow", "nightly_export")
    accept_and_apply(
        *run(APP_RUN, "daily_revenue", minutes=0, typed=job_type("SPARK", "APPLICATION")),
        *run(
            WRITE_RUN,
            "daily_revenue.write_parquet.orders_clean",
            minutes=1,
            parent_of=app,
            typed=job_type("SPARK", "SQL_JOB"),
            inputs=[lake("bronze/orders")],
            outputs=[lake("silver/orders_clean")],
        ),
        *run(
            TABLE_RUN,
            "daily_revenue.create_table.daily_revenue",
            minutes=3,
            parent_of=app,
            typed=job_type("SPARK", "SQL_JOB"),
            inputs=[lake("silver/orders_clean")],
            outputs=[lake("gold/daily_revenue")],
        ),
        *run(
            PUBLISH_RUN,
            "publish_report",
            minutes=10,
            inputs=[lake("gold/daily_revenue")],
            outputs=[dataset("file", "/tmp/x/reports/revenue.csv")],
        ),
        *run(
            UPLOAD_RUN,
            "nightly_export.upload",
            namespace="airflow",
            minutes=20,
            parent_of=dag,
            typed=job_type("AIRFLOW", "TASK"),
            inputs=[lake("gold/daily_revenue")],
            outputs=[dataset("s3://exports", "revenue.parquet")],
        ),
    )
