"""Column lineage through views, joins, aggregates, unions, windows, explode, subqueries, CTEs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agent_support import dataset_lineage, lineage, schema, spark_version
from pyspark.sql import Window
from pyspark.sql import functions as F

pytestmark = pytest.mark.spark


@pytest.fixture
def data(spark: Any, tmp_path: Path) -> dict[str, str]:
    orders, customers = str(tmp_path / "orders"), str(tmp_path / "customers")
    rows = [(1, 10, 2.5), (2, 20, 4.0), (3, 10, 1.5)]
    spark.createDataFrame(rows, "id INT, customer_id INT, price DOUBLE").write.parquet(orders)
    people = [(10, "ada lovelace"), (20, "alan turing")]
    spark.createDataFrame(people, "id INT, name STRING").write.json(customers)
    return {"orders": orders, "customers": customers, "out": str(tmp_path)}


def _read(spark: Any, data: dict[str, str]) -> tuple[Any, Any]:
    orders = spark.read.parquet(data["orders"])
    customers = spark.read.schema("id INT, name STRING").json(data["customers"])
    return orders, customers


def test_temp_views_resolve_to_what_they_read(spark: Any, record: Any, data: dict[str, str]) -> None:
    ORD = data["orders"]
    spark.read.parquet(ORD).createOrReplaceTempView("orders_view")
    with record("views") as events:
        query = "SELECT id, price FROM orders_view WHERE price > 2 ORDER BY price DESC"
        spark.sql(query).write.parquet(data["out"] + "/expensive")
    (out,) = events.child("views.write_parquet.expensive")["outputs"]
    assert [d["name"] for d in events.child("views.write_parquet.expensive")["inputs"]] == [ORD]
    assert lineage(out) == {"id": [(ORD, "id", "IDENTITY")], "price": [(ORD, "price", "IDENTITY")]}
    assert dataset_lineage(out) == [(ORD, "price", "FILTER", "SORT")]


def test_join_and_aggregate(spark: Any, record: Any, data: dict[str, str]) -> None:
    ORD, CUS = data["orders"], data["customers"]
    orders, customers = _read(spark, data)
    with record("joins") as events:
        joined = orders.join(customers, orders.customer_id == customers.id)
        totals = joined.groupBy(customers.name).agg(F.sum("price").alias("total"), F.count(F.lit(1)).alias("n"))
        totals.write.parquet(data["out"] + "/totals")
    event = events.child("joins.write_parquet.totals")
    assert sorted(d["name"] for d in event["inputs"]) == sorted([ORD, CUS])
    (out,) = event["outputs"]
    assert schema(out) == [("name", "string"), ("total", "double"), ("n", "long")]
    # written after a shuffle: from Spark 4.0 the write node is inside the final query stage
    assert out["outputFacets"]["outputStatistics"]["rowCount"] == 2
    assert lineage(out) == {
        "name": [(CUS, "name", "IDENTITY")],
        "total": [(ORD, "price", "AGGREGATION")],
        "n": [],
    }
    assert sorted(dataset_lineage(out)) == sorted(
        [(CUS, "id", "JOIN"), (CUS, "name", "GROUP_BY"), (ORD, "customer_id", "JOIN")]
    )


def test_union_is_positional(spark: Any, record: Any, data: dict[str, str]) -> None:
    ORD, CUS = data["orders"], data["customers"]
    orders, customers = _read(spark, data)
    with record("unions") as events:
        left = orders.select(F.col("id").alias("key"), F.col("price").cast("string").alias("label"))
        left.union(customers.select("id", "name")).write.parquet(data["out"] + "/keys")
    (out,) = events.child("unions.write_parquet.keys")["outputs"]
    assert lineage(out) == {
        "key": [(CUS, "id", "IDENTITY"), (ORD, "id", "IDENTITY")],
        "label": [(CUS, "name", "IDENTITY"), (ORD, "price", "TRANSFORMATION")],
    }


def test_window_functions(spark: Any, record: Any, data: dict[str, str]) -> None:
    ORD = data["orders"]
    orders, _ = _read(spark, data)
    with record("windows") as events:
        by_customer = Window.partitionBy("customer_id").orderBy(F.desc("price"))
        ranked = orders.select(
            "id",
            F.row_number().over(by_customer).alias("rn"),
            F.sum("price").over(Window.partitionBy("customer_id")).alias("customer_total"),
        )
        ranked.write.parquet(data["out"] + "/ranked")
    (out,) = events.child("windows.write_parquet.ranked")["outputs"]
    assert lineage(out) == {
        "id": [(ORD, "id", "IDENTITY")],
        "rn": [(ORD, "customer_id", "WINDOW"), (ORD, "price", "WINDOW")],
        "customer_total": [(ORD, "customer_id", "WINDOW"), (ORD, "price", "AGGREGATION")],
    }


def test_explode(spark: Any, record: Any, data: dict[str, str]) -> None:
    CUS = data["customers"]
    _, customers = _read(spark, data)
    with record("explode") as events:
        words = customers.select("id", F.explode(F.split("name", " ")).alias("word"))
        words.write.parquet(data["out"] + "/words")
    (out,) = events.child("explode.write_parquet.words")["outputs"]
    assert lineage(out) == {
        "id": [(CUS, "id", "IDENTITY")],
        "word": [(CUS, "name", "TRANSFORMATION")],
    }
    assert out["outputFacets"]["outputStatistics"]["rowCount"] == 4


def test_rollups_and_set_operations(spark: Any, record: Any, data: dict[str, str]) -> None:
    ORD, CUS = data["orders"], data["customers"]
    orders, customers = _read(spark, data)
    with record("sets") as events:
        rolled = orders.rollup("customer_id").agg(F.sum("price").alias("total"))
        rolled.write.parquet(data["out"] + "/rollup")
        ids = orders.select(F.col("customer_id").alias("id")).exceptAll(customers.select("id"))
        ids.write.parquet(data["out"] + "/orphans")
    (out,) = events.child("sets.write_parquet.rollup")["outputs"]
    assert lineage(out) == {
        "customer_id": [(ORD, "customer_id", "IDENTITY")],
        "total": [(ORD, "price", "AGGREGATION")],
    }
    (out,) = events.child("sets.write_parquet.orphans")["outputs"]
    assert lineage(out) == {"id": [(ORD, "customer_id", "IDENTITY")]}
    assert (CUS, "id", "FILTER") in dataset_lineage(out)


def test_subqueries_and_ctes(spark: Any, record: Any, data: dict[str, str]) -> None:
    ORD, CUS = data["orders"], data["customers"]
    orders, customers = _read(spark, data)
    orders.createOrReplaceTempView("o")
    customers.createOrReplaceTempView("c")
    with record("sql") as events:
        spark.sql(
            "SELECT id, (SELECT max(price) FROM o) AS max_price FROM o "
            "WHERE customer_id IN (SELECT id FROM c WHERE name LIKE 'a%')"
        ).write.parquet(data["out"] + "/subq")
        spark.sql(
            "WITH big AS (SELECT customer_id, price FROM o WHERE price > 2) "
            "SELECT b.customer_id, c.name, sum(b.price) AS spent "
            "FROM big b JOIN c ON b.customer_id = c.id "
            "GROUP BY b.customer_id, c.name"
        ).write.parquet(data["out"] + "/cte")
    (out,) = events.child("sql.write_parquet.subq")["outputs"]
    assert lineage(out) == {
        "id": [(ORD, "id", "IDENTITY")],
        "max_price": [(ORD, "price", "AGGREGATION")],
    }
    assert sorted(dataset_lineage(out)) == [
        (CUS, "id", "FILTER"),
        (CUS, "name", "FILTER"),
        (ORD, "customer_id", "FILTER"),
    ]
    (out,) = events.child("sql.write_parquet.cte")["outputs"]
    assert lineage(out) == {
        "customer_id": [(ORD, "customer_id", "IDENTITY")],
        "name": [(CUS, "name", "IDENTITY")],
        "spent": [(ORD, "price", "AGGREGATION")],
    }
    assert sorted(dataset_lineage(out)) == [
        (CUS, "id", "JOIN"),
        (CUS, "name", "GROUP_BY"),
        (ORD, "customer_id", "GROUP_BY", "JOIN"),
        (ORD, "price", "FILTER"),
    ]


def test_an_unknown_plan_node_degrades_to_unresolved_columns(spark: Any, record: Any, data: dict[str, str]) -> None:
    CUS = data["customers"]
    _, customers = _read(spark, data)
    customers.createOrReplaceTempView("people")
    with record("unknown") as events:
        spark.sql(
            "SELECT upper(a) AS a_up, b FROM "
            "(SELECT TRANSFORM(id, name) USING 'cat' AS (a STRING, b STRING) FROM people)"
        ).write.parquet(data["out"] + "/scripted")
    event = events.child("unknown.write_parquet.scripted")
    assert [d["name"] for d in event["inputs"]] == [CUS]  # dataset-level lineage survives
    (out,) = event["outputs"]
    facet = out["facets"]["columnLineage"]["fields"]
    assert facet == {
        "a_up": {"inputFields": [], "unresolved": True},
        "b": {"inputFields": [], "unresolved": True},
    }
    counters = event["run"]["facets"]["tributary_counters"]
    assert (counters["unresolvedColumns"], counters["unknownPlanNodes"]) == (2, 1)
    assert events.app("COMPLETE")["run"]["facets"]["tributary_counters"]["unresolvedColumns"] == 2


def test_sql_pipe_syntax_has_the_lineage_of_the_plain_query(spark: Any, record: Any, data: dict[str, str]) -> None:
    """Spark 4.0's pipe syntax leaves a `PipeOperator` marker in the plan; it passes lineage through.
    Spark 3.5 cannot parse the pipe form, so there the plain query shows what is expected of it."""
    ORD = data["orders"]
    spark.read.parquet(ORD).createOrReplaceTempView("piped")
    if spark_version() >= (4, 0):
        query = "FROM piped |> WHERE price > 2 |> SELECT id, price * 2 AS doubled"
    else:
        query = "SELECT id, price * 2 AS doubled FROM piped WHERE price > 2"
    with record("pipes") as events:
        spark.sql(query).write.parquet(data["out"] + "/piped")
    event = events.child("pipes.write_parquet.piped")
    (out,) = event["outputs"]
    assert lineage(out) == {"id": [(ORD, "id", "IDENTITY")], "doubled": [(ORD, "price", "TRANSFORMATION")]}
    assert dataset_lineage(out) == [(ORD, "price", "FILTER")]
    assert event["run"]["facets"]["tributary_counters"]["unknownPlanNodes"] == 0


@pytest.mark.skipif(spark_version() < (4, 1), reason="WITH RECURSIVE is new in Spark 4.1")
def test_a_recursive_cte_has_the_lineage_of_its_anchor_and_its_recursion(
    spark: Any, record: Any, tmp_path: Path
) -> None:
    people = str(tmp_path / "people")
    rows = [(1, None, "ada"), (2, 1, "bob"), (3, 2, "cy")]
    spark.createDataFrame(rows, "id INT, manager_id INT, name STRING").write.parquet(people)
    spark.read.parquet(people).createOrReplaceTempView("people")
    with record("recursive") as events:
        spark.sql(
            "WITH RECURSIVE chain AS ("
            "  SELECT id, name, 0 AS depth FROM people WHERE manager_id IS NULL"
            "  UNION ALL"
            "  SELECT p.id, upper(p.name), c.depth + 1 FROM people p JOIN chain c ON p.manager_id = c.id"
            ") SELECT id, name, depth FROM chain"
        ).write.parquet(str(tmp_path / "chain"))
    event = events.child("recursive.write_parquet.chain")
    (out,) = event["outputs"]
    assert lineage(out) == {
        "id": [(people, "id", "IDENTITY")],
        "name": [(people, "name", "TRANSFORMATION")],  # upper() in the recursion
        "depth": [],  # a literal, then itself plus one
    }
    assert sorted(dataset_lineage(out)) == [(people, "id", "JOIN"), (people, "manager_id", "FILTER", "JOIN")]
    counters = event["run"]["facets"]["tributary_counters"]
    assert (counters["unresolvedColumns"], counters["unknownPlanNodes"]) == (0, 0)
    assert out["outputFacets"]["outputStatistics"]["rowCount"] == 3
