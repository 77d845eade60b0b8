"""Events naming one table three ways (location, catalog name, `s3a://` with a trailing '/'), for the identity tests."""

from __future__ import annotations

from datetime import timedelta

from tests.events import T0, dataset, facet, run_event

LOCATION = ("s3://lake", "warehouse/orders")
CATALOG = ("hive://metastore", "sales.orders")
CANONICAL_ID = "dataset:s3://lake:warehouse/orders"
CATALOG_ID = "dataset:hive://metastore:sales.orders"
S3A_ID = "dataset:s3a://lake:warehouse/orders/"
SUMMARY_ID = "dataset:s3://lake:marts/order_summary"


def symlinked(namespace: str, name: str, **extra: object) -> dict:
    """The location name carrying its catalog name as a `symlinks` identifier (as OpenLineage Spark sends it)."""
    ds = dataset(namespace, name, **extra)
    ds["facets"]["symlinks"] = facet(identifiers=[{"namespace": CATALOG[0], "name": CATALOG[1], "type": "TABLE"}])
    return ds


def alias_events() -> list[dict]:
    """A writer names the table by `s3a://…/` path; a reader by catalog name only (with column lineage
    from it); a third job reads it by location with the symlink that says both are one table."""
    writer, reader, linker = (f"6f1c1a54-0000-4000-8000-00000000000{i}" for i in (1, 2, 3))
    by_path = dataset(
        "s3a://lake", "warehouse/orders/", fields=[("id", "bigint"), ("total", "double")], owners=["team:sales"]
    )
    by_catalog = dataset(*CATALOG, fields=[("id", "bigint"), ("total", "double")])
    by_catalog["facets"]["tags"] = facet(tags=[{"key": "domain", "value": "sales", "source": "CATALOG"}])
    summary = dataset(
        "s3://lake",
        "marts/order_summary",
        fields=[("id", "bigint"), ("sum_total", "double")],
        column_lineage={"id": [(*CATALOG, "id")], "sum_total": [(*CATALOG, "total")]},
    )
    day = T0 + timedelta(days=3)
    return [
        run_event("START", run_id=writer, job="orders.load", at=day, outputs=[by_path]),
        run_event("COMPLETE", run_id=writer, job="orders.load", at=day + timedelta(minutes=2), outputs=[by_path]),
        run_event(
            "START",
            run_id=reader,
            job="orders.summarise",
            at=day + timedelta(hours=1),
            inputs=[by_catalog],
            outputs=[summary],
        ),
        run_event(
            "COMPLETE",
            run_id=reader,
            job="orders.summarise",
            at=day + timedelta(hours=1, minutes=4),
            inputs=[by_catalog],
            outputs=[summary],
        ),
        run_event(
            "COMPLETE", run_id=linker, job="orders.audit", at=day + timedelta(hours=2), inputs=[symlinked(*LOCATION)]
        ),
    ]
