"""An Airflow DAG run -> task -> Spark application -> two actions, as the Airflow provider and the Spark integration
send them: every child's parent facet names its parent and the DAG run as `root` (ParentRunFacet 1-1-0)."""

from __future__ import annotations

from typing import Any

from tests.events import dataset, facet
from tests.explorer.application_graph import job_type, parent, run

DAG_RUN, TASK_RUN, APP_RUN = (f"00000000-0000-4000-8000-0000000000e{n}" for n in (1, 2, 3))
ACTION_RUNS = ("00000000-0000-4000-8000-0000000000e4", "00000000-0000-4000-8000-0000000000e5")
DAG, TASK = "job:airflow:orders_nightly", "job:airflow:orders_nightly.spark_transform"
APP = "job:spark:transform_orders"
ACTIONS = (
    "job:spark:transform_orders.execute_insert_into_hadoop_fs_relation_command.clean_orders",
    "job:spark:transform_orders.execute_create_table_as_select.orders_by_day",
)
RAW, CLEAN, BY_DAY = (f"dataset:s3://lake:{name}" for name in ("raw/orders", "clean/orders", "agg/orders_by_day"))
ROOT = (DAG_RUN, "airflow", "orders_nightly")


def spark_facets() -> dict[str, Any]:
    """Run facets the OpenLineage Spark integration adds of its own (docs/facets.md)."""
    return {
        "spark_applicationDetails": facet(master="yarn", appName="transform_orders", deployMode="cluster"),
        "spark_properties": facet(properties={"spark.master": "yarn", "spark.app.name": "transform_orders"}),
    }


def chain_runs() -> dict[str, list[dict[str, Any]]]:
    """Each run's START and COMPLETE, by the name of its level: `dag`, `task`, `application`, `action1`, `action2`."""
    under = {
        "task": parent(DAG_RUN, "airflow", "orders_nightly", root=ROOT),
        "application": parent(TASK_RUN, "airflow", "orders_nightly.spark_transform", root=ROOT),
        "action": parent(APP_RUN, "spark", "transform_orders", root=ROOT),
    }
    action = job_type("SPARK", "SQL_JOB")
    application = run(
        APP_RUN, "transform_orders", minutes=2, parent_of=under["application"], typed=job_type("SPARK", "APPLICATION")
    )
    for event in application:  # the Spark integration's own facets, beside the standard ones
        event["run"]["facets"].update(spark_facets())
    return {
        "dag": run(DAG_RUN, "orders_nightly", namespace="airflow", typed=job_type("AIRFLOW", "DAG")),
        "task": run(
            TASK_RUN,
            "orders_nightly.spark_transform",
            namespace="airflow",
            minutes=1,
            parent_of=under["task"],
            typed=job_type("AIRFLOW", "TASK"),
        ),
        "application": application,
        "action1": run(
            ACTION_RUNS[0],
            ACTIONS[0].removeprefix("job:spark:"),
            minutes=3,
            parent_of=under["action"],
            typed=action,
            inputs=[dataset("s3://lake", "raw/orders")],
            outputs=[dataset("s3://lake", "clean/orders")],
        ),
        "action2": run(
            ACTION_RUNS[1],
            ACTIONS[1].removeprefix("job:spark:"),
            minutes=5,
            parent_of=under["action"],
            typed=action,
            inputs=[dataset("s3://lake", "clean/orders")],
            outputs=[dataset("s3://lake", "agg/orders_by_day")],
        ),
    }
