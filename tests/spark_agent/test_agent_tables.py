"""Catalog tables (saveAsTable, insertInto, CTAS, INSERT INTO) and JDBC (embedded Derby)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agent_support import dataset_lineage, lineage, schema

pytestmark = pytest.mark.spark

DERBY = {"driver": "org.apache.derby.jdbc.EmbeddedDriver"}


def test_catalog_tables_are_named_by_location_with_a_table_symlink(spark: Any, record: Any, seed: str) -> None:
    warehouse = spark.conf.get("spark.sql.warehouse.dir")
    location = warehouse.removeprefix("file:")
    spark.sql("DROP TABLE IF EXISTS orders")
    spark.sql("DROP TABLE IF EXISTS orders_copy")
    with record("tables") as events:
        spark.read.parquet(seed).write.saveAsTable("orders")
        spark.read.parquet(seed).write.insertInto("orders")
        spark.sql("CREATE TABLE orders_copy USING parquet AS SELECT id, price * 2 AS price2 FROM orders")
        spark.sql("INSERT INTO orders_copy SELECT id, price FROM orders WHERE customer_id = 10")

    orders, copy = f"{location}/orders", f"{location}/orders_copy"
    created = events.child("tables.create_table.default_orders")
    (out,) = created["outputs"]
    assert (out["namespace"], out["name"]) == ("file", orders)
    assert out["facets"]["symlinks"]["identifiers"] == [
        {"namespace": warehouse, "name": "default.orders", "type": "TABLE"}
    ]
    assert out["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "CREATE"
    assert schema(out) == [("id", "integer"), ("customer_id", "integer"), ("price", "double")]
    assert lineage(out) == {c: [(seed, c, "IDENTITY")] for c in ("id", "customer_id", "price")}
    # the nested file write's metrics were merged into the one child run
    assert out["outputFacets"]["outputStatistics"]["rowCount"] == 3
    assert len([e for e in events.children() if e["outputs"][0]["name"] == orders]) == 2

    inserted = events.child("tables.insert_into.default_orders")
    (out,) = inserted["outputs"]
    assert (out["name"], out["facets"]["symlinks"]["identifiers"][0]["name"]) == (
        orders,
        "default.orders",
    )
    assert lineage(out) == {c: [(seed, c, "IDENTITY")] for c in ("id", "customer_id", "price")}
    assert out["outputFacets"]["outputStatistics"]["rowCount"] == 3

    ctas = events.child("tables.create_table.default_orders_copy")
    assert [d["name"] for d in ctas["inputs"]] == [orders]
    assert ctas["inputs"][0]["facets"]["symlinks"]["identifiers"][0]["name"] == "default.orders"
    (out,) = ctas["outputs"]
    assert out["name"] == copy
    assert schema(out) == [("id", "integer"), ("price2", "double")]
    assert lineage(out) == {
        "id": [(orders, "id", "IDENTITY")],
        "price2": [(orders, "price", "TRANSFORMATION")],
    }
    assert ctas["inputs"][0]["inputFacets"]["inputStatistics"]["rowCount"] == 6

    sql_insert = events.child("tables.insert_into.default_orders_copy")
    (out,) = sql_insert["outputs"]
    assert out["name"] == copy
    # the analyzer's cast of price (double) to price2 (double) changes nothing: IDENTITY
    assert lineage(out) == {
        "id": [(orders, "id", "IDENTITY")],
        "price2": [(orders, "price", "IDENTITY")],
    }
    assert dataset_lineage(out) == [(orders, "customer_id", "FILTER")]
    assert out["outputFacets"]["outputStatistics"]["rowCount"] == 4


def test_jdbc_reads_and_writes_are_named_per_the_naming_spec(
    spark: Any, record: Any, seed: str, tmp_path: Path
) -> None:
    url = "jdbc:derby:memory:tributary;create=true"
    copied = str(tmp_path / "from_jdbc")
    with record("jdbc") as events:
        spark.read.parquet(seed).write.jdbc(url, "APP.ORDERS", mode="overwrite", properties=DERBY)
        df = spark.read.jdbc(url, "APP.ORDERS", properties=DERBY)
        df.where("price > 2").select("id", "price").write.parquet(copied)
        spark.sql("DROP TABLE IF EXISTS jdbc_orders")
        spark.sql(
            f"CREATE TABLE jdbc_orders USING jdbc OPTIONS (url '{url}', dbtable 'APP.ORDERS', "
            "driver 'org.apache.derby.jdbc.EmbeddedDriver')"
        )
        spark.sql(f"INSERT INTO jdbc_orders SELECT id + 100, customer_id, price FROM parquet.`{seed}`")

    written = events.child("jdbc.write_jdbc.APP_ORDERS")
    (out,) = written["outputs"]
    assert (out["namespace"], out["name"]) == ("derby:memory:tributary", "APP.ORDERS")
    assert lineage(out) == {c: [(seed, c, "IDENTITY")] for c in ("id", "customer_id", "price")}
    assert out["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "OVERWRITE"
    # the JDBC writer's internal foreachPartition is merged into the write, not a run of its own
    assert [e["job"]["name"] for e in events.children()] == [
        "jdbc.write_jdbc.APP_ORDERS",
        "jdbc.write_parquet.from_jdbc",
        "jdbc.insert_into.default_jdbc_orders",
    ]

    read = events.child("jdbc.write_parquet.from_jdbc")
    (source,) = read["inputs"]
    assert (source["namespace"], source["name"]) == ("derby:memory:tributary", "APP.ORDERS")
    assert schema(source) == [("id", "integer"), ("customer_id", "integer"), ("price", "double")]
    assert source["inputFacets"]["inputStatistics"]["rowCount"] == 2
    assert lineage(read["outputs"][0]) == {
        "id": [("APP.ORDERS", "id", "IDENTITY")],
        "price": [("APP.ORDERS", "price", "IDENTITY")],
    }
    assert dataset_lineage(read["outputs"][0]) == [("APP.ORDERS", "price", "FILTER")]

    inserted = events.child("jdbc.insert_into.default_jdbc_orders")
    (out,) = inserted["outputs"]
    assert (out["namespace"], out["name"]) == ("derby:memory:tributary", "APP.ORDERS")
    assert out["facets"]["symlinks"]["identifiers"][0]["name"] == "default.jdbc_orders"
    assert lineage(out) == {
        "id": [(seed, "id", "TRANSFORMATION")],
        "customer_id": [(seed, "customer_id", "IDENTITY")],
        "price": [(seed, "price", "IDENTITY")],
    }
