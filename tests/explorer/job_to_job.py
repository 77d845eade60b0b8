"""Events that link jobs to jobs, shaped as producers send them, posted through HTTP by the tests that use them.

Airflow: DAG `orders_daily` runs `extract` then `load`; each task's run declares its dependencies with the
         `jobDependencies` run facet (1-0-1), `load` naming `extract` upstream, `extract` naming `load`
         downstream, and both carry the DAG as their parent (with `root`).
Spark:   `stage_orders` writes a temporary dataset (`datasetType` JOB_OUTPUT, subtype TEMPORARY) that
         `publish_orders` reads, writing `warehouse/orders`.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from tests.events import T0, dataset, facet, run_event
from tests.explorer.application_graph import job_type, parent

AIRFLOW = "airflow://prod"
DAG, EXTRACT, LOAD = "orders_daily", "orders_daily.extract", "orders_daily.load"
DAG_ID, EXTRACT_ID, LOAD_ID = (f"job:{AIRFLOW}:{name}" for name in (DAG, EXTRACT, LOAD))
DAG_RUN = "00000000-0000-4000-8000-0000000dd001"
EXTRACT_RUNS = ("00000000-0000-4000-8000-0000000dd011", "00000000-0000-4000-8000-0000000dd012")
LOAD_RUNS = ("00000000-0000-4000-8000-0000000dd021", "00000000-0000-4000-8000-0000000dd022")
RAW, STAGED = dataset("s3://lake", "raw/orders"), dataset("s3://lake", "staged/orders")
RAW_ID, STAGED_ID = "dataset:s3://lake:raw/orders", "dataset:s3://lake:staged/orders"

SPARK = "spark://cluster"
STAGE, PUBLISH = "stage_orders.execute_save", "publish_orders.execute_insert_into"
STAGE_ID, PUBLISH_ID = f"job:{SPARK}:{STAGE}", f"job:{SPARK}:{PUBLISH}"
TEMP_ID, WAREHOUSE_ID = "dataset:s3://lake:tmp/orders_stage_4f1a", "dataset:s3://lake:warehouse/orders"


def dependency(name: str) -> dict[str, Any]:
    return {
        "job": {"namespace": AIRFLOW, "name": name},
        "dependency_type": "DIRECT_INVOCATION",
        "sequence_trigger_rule": "FINISH_TO_START",
        "status_trigger_rule": "EXECUTE_ON_SUCCESS",
    }


def task_run(
    run_id: str,
    job: str,
    *,
    minutes: int,
    upstream: tuple[str, ...] = (),
    downstream: tuple[str, ...] = (),
    inputs: list[dict[str, Any]] | None = None,
    outputs: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """An Airflow task's START and COMPLETE, as the provider sends them: the DAG run as parent and root, the task's
    job type, and (when it has any) its dependencies on the START event only."""
    at = T0 + timedelta(minutes=minutes)
    lineage = parent(DAG_RUN, AIRFLOW, DAG, root=(DAG_RUN, AIRFLOW, DAG))
    declared = (
        {
            "jobDependencies": facet(
                upstream=[dependency(name) for name in upstream],
                downstream=[dependency(name) for name in downstream],
                trigger_rule="ALL_SUCCESS",
            )
        }
        if upstream or downstream
        else {}
    )
    events = [
        run_event("START", run_id=run_id, job=job, namespace=AIRFLOW, at=at, run_facets={**lineage, **declared}),
        run_event(
            "COMPLETE",
            run_id=run_id,
            job=job,
            namespace=AIRFLOW,
            at=at + timedelta(minutes=1),
            inputs=inputs,
            outputs=outputs,
            run_facets=lineage,
        ),
    ]
    for event in events:
        event["job"]["facets"].update(job_type("AIRFLOW", "TASK"))
    return events


def airflow_dag_run() -> list[dict[str, Any]]:
    """The DAG's run and its two tasks' first runs, each declaring the other."""
    dag = [
        run_event(kind, run_id=DAG_RUN, job=DAG, namespace=AIRFLOW, at=T0 + timedelta(minutes=minutes))
        for kind, minutes in (("START", 0), ("COMPLETE", 10))
    ]
    for event in dag:
        event["job"]["facets"].update(job_type("AIRFLOW", "DAG"))
    return [
        *dag,
        *task_run(EXTRACT_RUNS[0], EXTRACT, minutes=1, downstream=(LOAD,), inputs=[RAW], outputs=[STAGED]),
        *task_run(LOAD_RUNS[0], LOAD, minutes=3, upstream=(EXTRACT,), inputs=[STAGED]),
    ]


def temporary(name: str) -> dict[str, Any]:
    return {
        "namespace": "s3://lake",
        "name": name,
        "facets": {"datasetType": facet(datasetType="JOB_OUTPUT", subType="TEMPORARY")},
    }


def spark_with_temporary() -> list[dict[str, Any]]:
    """Two Spark jobs meeting at a temporary dataset, each run START and COMPLETE."""
    spark = job_type("SPARK", "SQL_JOB")
    events = []
    for minutes, (run_id, job, inputs, outputs) in enumerate(
        (
            ("00000000-0000-4000-8000-0000000dd031", STAGE, [RAW], [temporary("tmp/orders_stage_4f1a")]),
            (
                "00000000-0000-4000-8000-0000000dd032",
                PUBLISH,
                [temporary("tmp/orders_stage_4f1a")],
                [dataset("s3://lake", "warehouse/orders")],
            ),
        )
    ):
        for kind, late in (("START", 0), ("COMPLETE", 1)):
            event = run_event(
                kind,
                run_id=run_id,
                job=job,
                namespace=SPARK,
                at=T0 + timedelta(minutes=2 * minutes + late),
                inputs=inputs,
                outputs=outputs,
            )
            event["job"]["facets"].update(spark)
            events.append(event)
    return events


ORDERS_ID = "dataset:s3://lake:warehouse/orders_daily"
PARTITION_JOB_ID = f"job:{SPARK}:orders_daily.execute_insert_into_hadoop_fs_relation_command"
PARTITION_RUNS = ("00000000-0000-4000-8000-0000000dd041", "00000000-0000-4000-8000-0000000dd042")


def partition_writes() -> list[dict[str, Any]]:
    """Two runs of a Spark job each overwriting one day's partition of `warehouse/orders_daily` (an
    `outputFacets.subset` partition condition, as the Spark integration sends for `INSERT OVERWRITE … PARTITION`)."""
    events = []
    for day, run_id in zip((23, 24), PARTITION_RUNS, strict=True):
        output = dataset("s3://lake", "warehouse/orders_daily") | {
            "outputFacets": {
                "subset": facet(
                    outputCondition={
                        "type": "partition",
                        "partitions": [{"identifier": f"date={day}", "dimensions": {"date": f"2026-11-{day}"}}],
                    }
                )
            }
        }
        for kind, late in (("START", 0), ("COMPLETE", 5)):
            event = run_event(
                kind,
                run_id=run_id,
                job="orders_daily.execute_insert_into_hadoop_fs_relation_command",
                namespace=SPARK,
                at=T0 + timedelta(days=day - 23, minutes=late),
                inputs=[RAW],
                outputs=[output],
            )
            event["job"]["facets"].update(job_type("SPARK", "SQL_JOB"))
            events.append(event)
    return events
