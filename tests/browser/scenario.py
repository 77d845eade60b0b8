"""A small known lineage, sent through the real ingest path, that the browser tests look at.

    raw.orders --load_orders--> clean.orders --aggregate (FAILED)--> mart.revenue --export--> exports/revenue.csv
    raw.orders --<script> job (FAILED)--> <img src=x onerror=alert(1)>

clean.orders has two schema versions (day 0 and day 2); names and the error message of the
hostile job are HTML, which the UI must show as text.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from tests.apply import accept_and_apply
from tests.events import T0, dataset, facet, run_event

DAY = timedelta(days=1)
RAW, CLEAN, MART = "dataset:db:raw.orders", "dataset:db:clean.orders", "dataset:db:mart.revenue"
EXPORT = "dataset:s3://bucket:exports/revenue.csv"
LOAD, AGGREGATE, EXPORT_JOB = "job:spark:load_orders", "job:spark:aggregate", "job:airflow:export"
EVIL_DATASET_NAME = "<img src=x onerror=alert(1)>"
EVIL_JOB_NAME = '<script>alert("job")</script>'
EVIL_FIELD = "<b>bold</b>"
EVIL_ERROR = "<img src=x onerror=alert(2)> broke"
EVIL_DATASET = f"dataset:evil:{EVIL_DATASET_NAME}"
AGGREGATE_ERROR = "ZeroDivisionError: division by zero in revenue"
AGGREGATE_STACK = (
    'Traceback (most recent call last):\n  File "aggregate.py", line 12, in <module>\n'
    "ZeroDivisionError: division by zero"
)

RUN_LOAD_1 = "00000000-0000-4000-8000-0000000000a1"
RUN_LOAD_2 = "00000000-0000-4000-8000-0000000000a2"
RUN_EXPORT = "00000000-0000-4000-8000-0000000000b1"
RUN_AGGREGATE = "00000000-0000-4000-8000-0000000000c1"
RUN_EVIL = "00000000-0000-4000-8000-0000000000d1"


def column_lineage(fields: dict[str, list[tuple[str, str, str, str, str]]]) -> dict[str, Any]:
    return facet(
        fields={
            out: {
                "inputFields": [
                    {"namespace": ns, "name": ds, "field": f, "transformations": [{"type": kind, "subtype": subtype}]}
                    for ns, ds, f, kind, subtype in sources
                ]
            }
            for out, sources in fields.items()
        }
    )


def lifecycle(
    *,
    run_id: str,
    job: str,
    namespace: str,
    day: int,
    inputs: list[dict[str, Any]],
    outputs: list[dict[str, Any]],
    minutes: int = 5,
    fail: str | None = None,
    stack: str | None = None,
) -> list[dict[str, Any]]:
    start = T0 + day * DAY
    end_facets = {}
    if fail is not None:
        end_facets = {"errorMessage": facet(message=fail, programmingLanguage="python", stackTrace=stack or fail)}
    return [
        run_event("START", run_id=run_id, job=job, namespace=namespace, at=start, inputs=inputs, outputs=outputs),
        run_event(
            "FAIL" if fail is not None else "COMPLETE",
            run_id=run_id,
            job=job,
            namespace=namespace,
            at=start + timedelta(minutes=minutes),
            inputs=inputs,
            outputs=outputs,
            run_facets=end_facets,
        ),
    ]


def build_scenario() -> None:
    raw = dataset("db", "raw.orders", fields=[("id", "bigint"), ("amount", "int"), ("country", "string")])
    clean_v1 = dataset(
        "db", "clean.orders", fields=[("id", "bigint"), ("amount_eur", "float")], owners=["team:payments"]
    )
    clean_v1["facets"]["columnLineage"] = column_lineage(
        {
            "id": [("db", "raw.orders", "id", "DIRECT", "IDENTITY")],
            "amount_eur": [("db", "raw.orders", "amount", "DIRECT", "TRANSFORMATION")],
        }
    )
    clean_v2 = dataset(
        "db",
        "clean.orders",
        fields=[("id", "bigint"), ("amount_eur", "double"), ("country", "string")],
        owners=["team:payments"],
    )
    clean_v2["facets"]["columnLineage"] = column_lineage(
        {
            "id": [("db", "raw.orders", "id", "DIRECT", "IDENTITY")],
            "amount_eur": [("db", "raw.orders", "amount", "DIRECT", "TRANSFORMATION")],
            "country": [("db", "raw.orders", "country", "DIRECT", "IDENTITY")],
        }
    )
    mart = dataset("db", "mart.revenue", fields=[("country", "string"), ("total", "double")])
    mart["facets"]["columnLineage"] = column_lineage(
        {
            "total": [("db", "clean.orders", "amount_eur", "DIRECT", "AGGREGATION")],
            "country": [("db", "clean.orders", "country", "DIRECT", "IDENTITY")],
        }
    )
    export = dataset("s3://bucket", "exports/revenue.csv", fields=[("country", "string"), ("total", "double")])
    evil = dataset("evil", EVIL_DATASET_NAME, fields=[(EVIL_FIELD, "string")])
    accept_and_apply(
        *lifecycle(
            run_id=RUN_LOAD_1, job="load_orders", namespace="spark", day=0, inputs=[raw], outputs=[clean_v1], minutes=4
        ),
        *lifecycle(
            run_id=RUN_EXPORT, job="export", namespace="airflow", day=1, inputs=[mart], outputs=[export], minutes=2
        ),
        *lifecycle(
            run_id=RUN_LOAD_2, job="load_orders", namespace="spark", day=2, inputs=[raw], outputs=[clean_v2], minutes=7
        ),
        *lifecycle(
            run_id=RUN_AGGREGATE,
            job="aggregate",
            namespace="spark",
            day=3,
            inputs=[clean_v2],
            outputs=[mart],
            fail=AGGREGATE_ERROR,
            stack=AGGREGATE_STACK,
        ),
        *lifecycle(
            run_id=RUN_EVIL, job=EVIL_JOB_NAME, namespace="evil", day=4, inputs=[raw], outputs=[evil], fail=EVIL_ERROR
        ),
    )
