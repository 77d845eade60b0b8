"""DataSource V2 writes (`writeTo`, `INSERT INTO`, CTAS / RTAS) through Spark's own V2 JDBC catalog on Derby,
and `writeTo` through its session catalog."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from agent_support import lineage, schema
from pyspark.sql import functions as F

pytestmark = pytest.mark.spark

CATALOG = "org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTableCatalog"


@pytest.fixture
def v2db(spark: Any) -> str:
    """A fresh V2 catalog (`JDBCTableCatalog`, shipped with Spark) over an in-memory Derby database."""
    name = f"v2_{uuid.uuid4().hex[:8]}"
    spark.conf.set(f"spark.sql.catalog.{name}", CATALOG)
    spark.conf.set(f"spark.sql.catalog.{name}.url", f"jdbc:derby:memory:{name};create=true")
    spark.conf.set(f"spark.sql.catalog.{name}.driver", "org.apache.derby.jdbc.EmbeddedDriver")
    return name


def _outputs(event: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    return [
        (d["namespace"], d["name"], d["facets"].get("lifecycleStateChange", {}).get("lifecycleStateChange"))
        for d in event["outputs"]
    ]


def test_write_to_and_insert_into_a_v2_table_are_outputs_with_column_lineage(
    spark: Any, record: Any, seed: str, v2db: str
) -> None:
    namespace = f"derby:memory:{v2db}"
    with record("v2") as events:
        orders = spark.read.parquet(seed)
        orders.select("id", (F.col("price") * 2).alias("doubled")).writeTo(f"{v2db}.APP.PRICES").create()
        orders.select("id", F.col("price").alias("doubled")).writeTo(f"{v2db}.APP.PRICES").append()
        orders.where("customer_id = 10").select("id", F.col("price").alias("doubled")).writeTo(
            f"{v2db}.APP.PRICES"
        ).overwrite(F.lit(True))
        spark.sql(f"INSERT INTO {v2db}.APP.PRICES SELECT id + 100, price FROM parquet.`{seed}`")

    job = f"v2.%s.{v2db}_APP_PRICES"
    created = events.child(job % "create_table")
    (out,) = created["outputs"]
    assert _outputs(created) == [(namespace, "APP.PRICES", "CREATE")]
    assert schema(out) == [("id", "integer"), ("doubled", "double")]
    assert lineage(out) == {"id": [(seed, "id", "IDENTITY")], "doubled": [(seed, "price", "TRANSFORMATION")]}
    assert [(d["namespace"], d["name"]) for d in created["inputs"]] == [("file", seed)]

    appended, inserted = (e for e in events.children() if e["job"]["name"] == job % "append")
    assert _outputs(appended) == [(namespace, "APP.PRICES", None)]
    assert lineage(appended["outputs"][0]) == {
        "id": [(seed, "id", "IDENTITY")],
        "doubled": [(seed, "price", "IDENTITY")],
    }
    assert lineage(inserted["outputs"][0])["id"] == [(seed, "id", "TRANSFORMATION")]
    overwritten = events.child(job % "overwrite")
    assert _outputs(overwritten) == [(namespace, "APP.PRICES", "OVERWRITE")]


def test_ctas_and_rtas_through_a_v2_catalog_read_and_write_its_tables(
    spark: Any, record: Any, seed: str, v2db: str
) -> None:
    namespace = f"derby:memory:{v2db}"
    spark.read.parquet(seed).writeTo(f"{v2db}.APP.ORDERS").create()
    with record("ctas") as events:
        spark.sql(
            f"CREATE TABLE {v2db}.APP.TOTALS AS "
            f"SELECT customer_id, SUM(price) AS total FROM {v2db}.APP.ORDERS GROUP BY customer_id"
        )
        spark.sql(f"REPLACE TABLE {v2db}.APP.TOTALS AS SELECT id AS customer_id, price AS total FROM {v2db}.APP.ORDERS")

    created = events.child(f"ctas.create_table.{v2db}_APP_TOTALS")
    assert [(d["namespace"], d["name"]) for d in created["inputs"]] == [(namespace, "APP.ORDERS")]
    assert _outputs(created) == [(namespace, "APP.TOTALS", "CREATE")]
    assert lineage(created["outputs"][0]) == {
        "customer_id": [("APP.ORDERS", "customer_id", "IDENTITY")],
        "total": [("APP.ORDERS", "price", "AGGREGATION")],
    }
    replaced = events.child(f"ctas.replace_table.{v2db}_APP_TOTALS")
    assert _outputs(replaced) == [(namespace, "APP.TOTALS", "OVERWRITE")]
    assert lineage(replaced["outputs"][0]) == {
        "customer_id": [("APP.ORDERS", "id", "IDENTITY")],
        "total": [("APP.ORDERS", "price", "IDENTITY")],
    }


def test_write_to_through_the_session_catalog_is_a_create_with_column_lineage(
    spark: Any, record: Any, seed: str
) -> None:
    """`writeTo` on Spark's own session catalog (`V2SessionCatalog`). For a file-source table Spark refuses
    `append` / `createOrReplace` ("Cannot write into v1 table"), so `create` is the V2 write it runs there;
    the table is named by its location, with its catalog name as a symlink, like `saveAsTable`."""
    warehouse = spark.conf.get("spark.sql.warehouse.dir")
    spark.sql("DROP TABLE IF EXISTS session_prices")
    with record("session") as events:
        orders = spark.read.parquet(seed)
        orders.select("id", (F.col("price") * 2).alias("doubled")).writeTo("session_prices").using("parquet").create()
        spark.sql("INSERT INTO session_prices SELECT id + 100, doubled FROM session_prices")

    location = f"{warehouse.removeprefix('file:')}/session_prices"
    created = events.child("session.create_table.default_session_prices")
    (out,) = created["outputs"]
    assert _outputs(created) == [("file", location, "CREATE")]
    assert out["facets"]["symlinks"]["identifiers"] == [
        {"namespace": warehouse, "name": "default.session_prices", "type": "TABLE"}
    ]
    assert schema(out) == [("id", "integer"), ("doubled", "double")]
    assert lineage(out) == {"id": [(seed, "id", "IDENTITY")], "doubled": [(seed, "price", "TRANSFORMATION")]}
    inserted = events.child("session.insert_into.default_session_prices")
    assert [d["name"] for d in inserted["inputs"]] == [location]
    assert lineage(inserted["outputs"][0]) == {
        "id": [(location, "id", "TRANSFORMATION")],
        "doubled": [(location, "doubled", "IDENTITY")],
    }
