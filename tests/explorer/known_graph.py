"""A small, fully known lineage graph built through the real ingestion path, for the read-API tests.

    raw.orders --load_orders--> clean.orders --aggregate--> mart.revenue --export--> s3 exports/revenue.csv

Runs: A (load_orders, COMPLETED, day 0), B (aggregate, COMPLETED, day 1), C (load_orders,
COMPLETED, day 2, new schema for clean.orders), D (aggregate, FAILED, day 3), E (airflow
export, ABORTED, day 4). The aggregate and export jobs appear only from day 1 and day 4.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from tests.apply import accept_and_apply
from tests.events import T0, dataset, facet, run_event

RUN_A = "00000000-0000-4000-8000-00000000000a"
RUN_B = "00000000-0000-4000-8000-00000000000b"
RUN_C = "00000000-0000-4000-8000-00000000000c"
RUN_D = "00000000-0000-4000-8000-00000000000d"
RUN_E = "00000000-0000-4000-8000-00000000000e"

RAW, CLEAN, MART = "dataset:db:raw.orders", "dataset:db:clean.orders", "dataset:db:mart.revenue"
EXPORT = "dataset:s3://bucket:exports/revenue.csv"
LOAD, AGGREGATE, EXPORT_JOB = "job:spark:load_orders", "job:spark:aggregate", "job:airflow:export"
AMOUNT_EUR = "datasetField:db:clean.orders:amount_eur"
# Two instants the known graph changes between (its runs span a few days from 2026-01-05).
EARLY, LATE = "2026-01-05T09:00:00Z", "2026-01-09T00:00:00Z"
DAY = timedelta(days=1)


def lineage_facet(fields: dict[str, list[tuple[str, str, str, str, str]]]) -> dict[str, Any]:
    """`columnLineage` with explicit transformations: output -> [(ns, dataset, field, type, subtype)]."""
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


def raw() -> dict[str, Any]:
    return dataset("db", "raw.orders", fields=[("id", "bigint"), ("amount", "int")])


def clean_v1() -> dict[str, Any]:
    out = dataset("db", "clean.orders", fields=[("id", "bigint"), ("amount_eur", "double")])
    out["facets"]["columnLineage"] = lineage_facet(
        {
            "id": [("db", "raw.orders", "id", "DIRECT", "IDENTITY")],
            "amount_eur": [("db", "raw.orders", "amount", "DIRECT", "TRANSFORMATION")],
        }
    )
    return out


def clean_v2() -> dict[str, Any]:
    out = dataset(
        "db",
        "clean.orders",
        owners=["team:sales"],
        fields=[("id", "bigint"), ("amount_eur", "decimal(10,2)"), ("country", "string")],
    )
    out["facets"]["columnLineage"] = clean_v1()["facets"]["columnLineage"]
    return out


def mart() -> dict[str, Any]:
    out = dataset("db", "mart.revenue", fields=[("total", "double")])
    out["facets"]["columnLineage"] = lineage_facet(
        {
            "total": [("db", "clean.orders", "amount_eur", "DIRECT", "AGGREGATION")],
        }
    )
    out["facets"]["columnLineage"]["dataset"] = [
        {
            "namespace": "db",
            "name": "clean.orders",
            "field": "id",
            "transformations": [{"type": "INDIRECT", "subtype": "GROUP_BY"}],
        },
    ]
    return out


def build_known_graph() -> None:
    error = {
        "errorMessage": facet(message="boom", programmingLanguage="python", stackTrace="Traceback...\nValueError: boom")
    }
    export = dataset("s3://bucket", "exports/revenue.csv")
    accept_and_apply(
        run_event("START", run_id=RUN_A, job="load_orders", at=T0, inputs=[raw()], outputs=[clean_v1()]),
        run_event(
            "COMPLETE",
            run_id=RUN_A,
            job="load_orders",
            at=T0 + timedelta(minutes=5),
            inputs=[raw()],
            outputs=[clean_v1()],
        ),
        run_event(
            "START",
            run_id=RUN_B,
            job="aggregate",
            at=T0 + DAY,
            inputs=[dataset("db", "clean.orders")],
            outputs=[mart()],
        ),
        run_event(
            "COMPLETE",
            run_id=RUN_B,
            job="aggregate",
            at=T0 + DAY + timedelta(minutes=2),
            inputs=[dataset("db", "clean.orders")],
            outputs=[mart()],
        ),
        run_event("START", run_id=RUN_C, job="load_orders", at=T0 + 2 * DAY, inputs=[raw()], outputs=[clean_v2()]),
        run_event(
            "COMPLETE",
            run_id=RUN_C,
            job="load_orders",
            at=T0 + 2 * DAY + timedelta(minutes=7),
            inputs=[raw()],
            outputs=[clean_v2()],
        ),
        run_event(
            "START",
            run_id=RUN_D,
            job="aggregate",
            at=T0 + 3 * DAY,
            inputs=[dataset("db", "clean.orders")],
            outputs=[dataset("db", "mart.revenue")],
        ),
        run_event(
            "FAIL",
            run_id=RUN_D,
            job="aggregate",
            at=T0 + 3 * DAY + timedelta(minutes=10),
            inputs=[dataset("db", "clean.orders")],
            run_facets=error,
        ),
        run_event(
            "START",
            run_id=RUN_E,
            job="export",
            namespace="airflow",
            at=T0 + 4 * DAY,
            inputs=[dataset("db", "mart.revenue")],
            outputs=[export],
        ),
        run_event("ABORT", run_id=RUN_E, job="export", namespace="airflow", at=T0 + 4 * DAY + timedelta(minutes=1)),
    )
