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


# One Iceberg table in a Hive metastore with two replicas, named four ways by three producers; and a fourth
# event whose hierarchy contradicts its name (docs/identity.md, "Catalog and hierarchy").
TABLE_LOCATION = ("s3://lake", "warehouse/sales.db/customers")
TABLE_ID = f"dataset:{TABLE_LOCATION[0]}:{TABLE_LOCATION[1]}"
METASTORE = "hive://metastore-0:9083"
DECLARED_TABLE = (METASTORE, "sales.customers")
CONTRADICTED_ID = f"dataset:{METASTORE}:sales.invoices"
CUSTOMERS = [{"type": "DATABASE", "name": "sales"}, {"type": "TABLE", "name": "customers"}]


def iceberg_catalog(name: str, metadata_uri: str) -> dict:
    """The `catalog` facet as OpenLineage Spark fills it for an Iceberg table in a Hive catalog."""
    return facet(
        framework="iceberg",
        type="hive",
        name=name,
        metadataUri=metadata_uri,
        warehouseUri="s3://lake/warehouse",
        source="spark",
    )


def catalogued(namespace: str, name: str, *, catalog: dict | None, levels: list[dict], **extra: object) -> dict:
    ds = dataset(namespace, name, **extra)
    ds["facets"]["hierarchy"] = facet(hierarchy=levels)
    if catalog is not None:
        ds["facets"]["catalog"] = catalog
    return ds


def catalog_events() -> list[dict]:
    """A Spark job writes the table by its `s3a://` location, with the catalog and hierarchy facets and no
    symlink; a Spark job reads it as `spark_catalog.sales.customers` in the metastore's namespace, with the
    hierarchy only; Trino reads it as `iceberg.sales.customers`, its catalog listing the metastore's
    replicas the other way round; and a job reads `sales.invoices` with a hierarchy naming `customers`."""
    writer, reader, trino, confused = (f"7a2c0b11-0000-4000-8000-00000000000{i}" for i in (1, 2, 3, 4))
    spark_catalog = iceberg_catalog("spark_catalog", "thrift://metastore-0:9083,thrift://metastore-1:9083")
    trino_catalog = iceberg_catalog("iceberg", "thrift://metastore-1:9083, thrift://metastore-0:9083")
    by_location = catalogued(
        "s3a://lake",
        TABLE_LOCATION[1],
        catalog=spark_catalog,
        levels=CUSTOMERS,
        fields=[("id", "bigint"), ("country", "string")],
    )
    by_alias = catalogued(METASTORE, "spark_catalog.sales.customers", catalog=None, levels=CUSTOMERS)
    by_trino = catalogued("trino://trino:8080", "iceberg.sales.customers", catalog=trino_catalog, levels=CUSTOMERS)
    contradicted = catalogued(METASTORE, "sales.invoices", catalog=spark_catalog, levels=CUSTOMERS)
    day = T0 + timedelta(days=5)
    return [
        run_event("START", run_id=writer, job="customers.load", at=day, outputs=[by_location]),
        run_event(
            "COMPLETE", run_id=writer, job="customers.load", at=day + timedelta(minutes=3), outputs=[by_location]
        ),
        run_event("COMPLETE", run_id=reader, job="customers.report", at=day + timedelta(hours=1), inputs=[by_alias]),
        run_event(
            "COMPLETE",
            run_id=trino,
            job="customers.dashboard",
            namespace="trino",
            at=day + timedelta(hours=2),
            inputs=[by_trino],
        ),
        run_event(
            "COMPLETE", run_id=confused, job="invoices.check", at=day + timedelta(hours=3), inputs=[contradicted]
        ),
    ]
