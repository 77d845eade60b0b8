"""Events rich in job, run and dataset facets, shaped like what dbt, Airflow and Spark send, and one hostile set.

dbt:     a model job with its SQL, Markdown documentation, git location, job type and tags
Airflow: a task's run with its nominal time, tags, processing engine, parameters and environment
Spark:   a Delta table written by three runs, each with its output statistics; storage, type, hierarchy, ...
evil:    markup and `javascript:` links in documentation, SQL, tags and the source location
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from tests.events import T0, dataset, facet, run_event

DBT_NAMESPACE, DBT_JOB = "dbt://analytics", "analytics.jaffle_shop.orders"
DBT_JOB_ID = f"job:{DBT_NAMESPACE}:{DBT_JOB}"
DBT_RUN = "00000000-0000-4000-8000-00000000db01"
DBT_SQL = (
    "-- orders, one row per order with its payments\n"
    "with payments as (\n"
    "    select order_id, sum(amount) as amount\n"
    "    from analytics.stg_payments\n"
    "    where status = 'success'\n"
    "    group by order_id\n"
    ")\n"
    "select o.order_id, o.customer_id, o.order_date, coalesce(p.amount, 0) as amount\n"
    "from analytics.stg_orders as o\n"
    "left join payments as p on p.order_id = o.order_id\n"
    "where o.order_date >= '2026-01-01'\n"
    "  and o.status <> 'returned'\n"
    "order by o.order_date desc\n"
    "limit 1000\n"
)
DBT_DOCUMENTATION = (
    "# Orders\n"
    "\n"
    "One row per **order**, with the sum of its *successful* payments.\n"
    "\n"
    "- built from `stg_orders` and `stg_payments`\n"
    "- refreshed daily by the [analytics DAG](https://airflow.example.com/dags/analytics)\n"
)
DBT_LOCATION_URL = "https://github.com/acme/analytics/blob/3f2a9c1/models/marts/orders.sql"

AIRFLOW_NAMESPACE, AIRFLOW_JOB = "airflow://prod", "orders_daily.load_orders"
AIRFLOW_JOB_ID = f"job:{AIRFLOW_NAMESPACE}:{AIRFLOW_JOB}"
AIRFLOW_RUN = "00000000-0000-4000-8000-0000000a1f01"

SPARK_NAMESPACE, SPARK_JOB = "spark://cluster", "orders_enrich.execute_insert_into_hadoop_fs_relation_command"
SPARK_DATASET_NAMESPACE, SPARK_DATASET = "s3://lake", "warehouse/sales/orders_enriched"
SPARK_DATASET_ID = f"dataset:{SPARK_DATASET_NAMESPACE}:{SPARK_DATASET}"
SPARK_RUNS = [f"00000000-0000-4000-8000-00000005a00{i}" for i in (1, 2, 3)]
# Rows and bytes each of the three Spark runs wrote.
SPARK_WRITES = [(120_000, 9_400_000), (135_500, 10_700_000), (98_250, 7_900_000)]

EVIL_NAMESPACE, EVIL_JOB = "evil", "markup_job"
EVIL_JOB_ID = f"job:{EVIL_NAMESPACE}:{EVIL_JOB}"
EVIL_RUN = "00000000-0000-4000-8000-0000000e0001"
EVIL_DATASET_ID = f"dataset:{EVIL_NAMESPACE}:evil_table"
EVIL_SCRIPT = "<script>window.__pwned = 'script'</script>"
EVIL_IMG = "<img src=x onerror=\"window.__pwned = 'img'\">"
EVIL_LINK = "javascript:window.__pwned='link'"
EVIL_DOCUMENTATION = (
    f"# Careful {EVIL_SCRIPT}\n\nHello {EVIL_IMG} and [click me]({EVIL_LINK}) and "
    "[also](JaVaScRiPt:alert(1)) and [data](data:text/html,<script>alert(1)</script>).\n"
)
EVIL_SQL = f"select '{EVIL_SCRIPT}' as a, \"{EVIL_IMG}\" as b -- {EVIL_IMG}\nfrom t"
EVIL_TAG = f"{EVIL_IMG}"


def dbt_model_run() -> list[dict[str, Any]]:
    """A dbt model's run as `dbt-ol run` reports it: the model job's SQL, docs, git location, type and tags."""
    job_facets = {
        "sql": facet(query=DBT_SQL, dialect="postgres"),
        "documentation": facet(description=DBT_DOCUMENTATION, contentType="text/markdown"),
        "sourceCodeLocation": facet(
            type="git",
            url=DBT_LOCATION_URL,
            repoUrl="https://github.com/acme/analytics.git",
            path="models/marts/orders.sql",
            version="3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
            branch="main",
            pullRequestNumber="418",
        ),
        "jobType": facet(processingType="BATCH", integration="DBT", jobType="MODEL"),
        "tags": facet(tags=[{"key": "layer", "value": "mart", "source": "DBT"}, {"key": "pii", "value": "false"}]),
    }
    inputs = [
        dataset("postgres://db:5432", "analytics.stg_orders"),
        dataset("postgres://db:5432", "analytics.stg_payments"),
    ]
    outputs = [dataset("postgres://db:5432", "analytics.orders")]
    return [
        _with_job_facets(event, job_facets)
        for event in (
            run_event(
                "START", run_id=DBT_RUN, job=DBT_JOB, namespace=DBT_NAMESPACE, at=T0, inputs=inputs, outputs=outputs
            ),
            run_event(
                "COMPLETE",
                run_id=DBT_RUN,
                job=DBT_JOB,
                namespace=DBT_NAMESPACE,
                at=T0 + timedelta(minutes=2),
                inputs=inputs,
                outputs=outputs,
            ),
        )
    ]


def airflow_task_run() -> list[dict[str, Any]]:
    """An Airflow task's run as the OpenLineage provider reports it: nominal time, tags, engine, parameters."""
    run_facets = {
        "nominalTime": facet(nominalStartTime="2026-01-05T00:00:00Z", nominalEndTime="2026-01-06T00:00:00Z"),
        "tags": facet(tags=[{"key": "team", "value": "sales", "source": "AIRFLOW"}, {"key": "tier", "value": "1"}]),
        "processing_engine": facet(name="Airflow", version="2.10.3", openlineageAdapterVersion="1.54.0"),
        "executionParameters": facet(
            parameters=[
                {"key": "ds", "value": "2026-01-05", "description": "logical date"},
                {"key": "full_refresh", "name": "Full refresh", "value": "false"},
            ]
        ),
        "environmentVariables": facet(
            environmentVariables=[{"name": "AIRFLOW_ENV", "value": "prod"}, {"name": "TZ", "value": "UTC"}]
        ),
        "externalQuery": facet(externalQueryId="bquxjob_5e1f_19a3", source="bigquery"),
    }
    job_facets = {"jobType": facet(processingType="BATCH", integration="AIRFLOW", jobType="TASK")}
    outputs = [dataset("bigquery", "sales.orders_daily")]
    start = run_event(
        "START",
        run_id=AIRFLOW_RUN,
        job=AIRFLOW_JOB,
        namespace=AIRFLOW_NAMESPACE,
        at=T0,
        outputs=outputs,
        run_facets=run_facets,
    )
    end = run_event(
        "COMPLETE",
        run_id=AIRFLOW_RUN,
        job=AIRFLOW_JOB,
        namespace=AIRFLOW_NAMESPACE,
        at=T0 + timedelta(minutes=7),
        outputs=outputs,
        run_facets=run_facets,
    )
    return [_with_job_facets(start, job_facets), _with_job_facets(end, job_facets)]


def spark_table_writes() -> list[dict[str, Any]]:
    """Three Spark runs (a day apart) writing one Delta table, each with the rows and bytes it wrote."""
    events = []
    for day, (run_id, (rows, size)) in enumerate(zip(SPARK_RUNS, SPARK_WRITES, strict=True)):
        table = dataset(
            SPARK_DATASET_NAMESPACE,
            SPARK_DATASET,
            fields=[("order_id", "bigint"), ("amount", "decimal(12,2)"), ("region", "string")],
        )
        table["facets"].update(
            storage=facet(storageLayer="delta", fileFormat="parquet"),
            datasetType=facet(datasetType="TABLE", subType="MANAGED"),
            hierarchy=facet(
                hierarchy=[{"type": "DATABASE", "name": "sales"}, {"type": "TABLE", "name": "orders_enriched"}]
            ),
            catalog=facet(framework="hive", type="hive", name="spark_catalog", metadataUri="thrift://metastore:9083"),
            dataSource=facet(name="s3://lake", uri="s3://lake"),
            version=facet(datasetVersion=str(day + 7)),
            documentation=facet(description="Orders joined with their **region**."),
            tags=facet(tags=[{"key": "domain", "value": "sales"}, {"key": "pii", "value": "true", "field": "region"}]),
        )
        table["outputFacets"] = {"outputStatistics": facet(rowCount=rows, size=size, fileCount=4 + day)}
        start = T0 + timedelta(days=day)
        for event_type, at in (("START", start), ("COMPLETE", start + timedelta(minutes=12))):
            events.append(
                run_event(
                    event_type,
                    run_id=run_id,
                    job=SPARK_JOB,
                    namespace=SPARK_NAMESPACE,
                    at=at,
                    inputs=[dataset("s3://lake", "raw/orders")],
                    outputs=[table],
                )
            )
    return events


def evil_run() -> list[dict[str, Any]]:
    """A job whose documentation, SQL, tags and source location carry markup and `javascript:` links."""
    job_facets = {
        "sql": facet(query=EVIL_SQL, dialect=EVIL_SCRIPT),
        "documentation": facet(description=EVIL_DOCUMENTATION, contentType="text/markdown"),
        "sourceCodeLocation": facet(type="git", url=EVIL_LINK, repoUrl=EVIL_LINK, path=EVIL_IMG, version="1"),
        "sourceCode": facet(language="python", sourceCode=f"print('{EVIL_SCRIPT}')"),
        "tags": facet(tags=[{"key": EVIL_TAG, "value": EVIL_SCRIPT}]),
    }
    table = dataset(EVIL_NAMESPACE, "evil_table")
    table["facets"].update(
        documentation=facet(description=EVIL_DOCUMENTATION),
        tags=facet(tags=[{"key": "x", "value": EVIL_IMG}]),
    )
    run_facets = {"tags": facet(tags=[{"key": EVIL_TAG, "value": EVIL_SCRIPT}])}
    return [
        _with_job_facets(
            run_event(
                kind,
                run_id=EVIL_RUN,
                job=EVIL_JOB,
                namespace=EVIL_NAMESPACE,
                at=T0 + timedelta(minutes=i),
                outputs=[table],
                run_facets=run_facets,
            ),
            job_facets,
        )
        for i, kind in enumerate(("START", "COMPLETE"))
    ]


def _with_job_facets(event: dict[str, Any], facets: dict[str, Any]) -> dict[str, Any]:
    event["job"]["facets"] = facets
    return event
