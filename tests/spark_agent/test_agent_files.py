"""File sources and sinks: parquet, csv, json, orc, text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agent_support import lineage, schema
from pyspark.sql import functions as F

pytestmark = pytest.mark.spark

SCHEMA = "id INT, name STRING, price DOUBLE"


@pytest.fixture
def seed(spark: Any, tmp_path: Path) -> str:
    path = str(tmp_path / "seed")
    rows = [(1, "apple pie", 2.5), (2, "plum cake", 4.0), (3, "fig roll", 1.5)]
    spark.createDataFrame(rows, SCHEMA).coalesce(1).write.parquet(path)
    return path


@pytest.mark.parametrize("fmt", ["parquet", "csv", "json", "orc"])
def test_each_format_is_named_by_path_with_schema_stats_and_column_lineage(
    spark: Any, record: Any, seed: str, tmp_path: Path, fmt: str
) -> None:
    written, copied = str(tmp_path / f"as_{fmt}"), str(tmp_path / f"back_from_{fmt}")
    with record("files") as events:
        spark.read.parquet(seed).coalesce(1).write.format(fmt).save(written)
        df = spark.read.format(fmt).schema(SCHEMA).load(written)
        out = df.select("id", F.upper("name").alias("name_uc"), (F.col("price") * 2).alias("twice"))
        out.write.parquet(copied)

    first = events.child(f"files.write_{fmt}.as_{fmt}")
    assert first["eventType"] == "COMPLETE"
    assert [(d["namespace"], d["name"]) for d in first["inputs"]] == [("file", seed)]
    assert [(d["namespace"], d["name"]) for d in first["outputs"]] == [("file", written)]
    (source,), (target,) = first["inputs"], first["outputs"]
    assert schema(source) == [("id", "integer"), ("name", "string"), ("price", "double")]
    assert schema(target) == [("id", "integer"), ("name", "string"), ("price", "double")]
    assert lineage(target) == {
        "id": [(seed, "id", "IDENTITY")],
        "name": [(seed, "name", "IDENTITY")],
        "price": [(seed, "price", "IDENTITY")],
    }
    assert source["inputFacets"]["inputStatistics"]["rowCount"] == 3
    assert source["inputFacets"]["inputStatistics"]["fileCount"] == 1
    stats = target["outputFacets"]["outputStatistics"]
    assert (stats["rowCount"], stats["fileCount"]) == (3, 1)
    assert stats["size"] > 0
    assert target["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "CREATE"

    second = events.child(f"files.write_parquet.back_from_{fmt}")
    (source,), (target,) = second["inputs"], second["outputs"]
    assert (source["name"], target["name"]) == (written, copied)
    assert schema(target) == [("id", "integer"), ("name_uc", "string"), ("twice", "double")]
    assert lineage(target) == {
        "id": [(written, "id", "IDENTITY")],
        "name_uc": [(written, "name", "TRANSFORMATION")],
        "twice": [(written, "price", "TRANSFORMATION")],
    }
    assert "dataset" not in target["facets"]["columnLineage"]
    assert source["inputFacets"]["inputStatistics"]["rowCount"] == 3


def test_text_files_are_read_and_written(spark: Any, record: Any, seed: str, tmp_path: Path) -> None:
    text, upper = str(tmp_path / "lines"), str(tmp_path / "upper_lines")
    with record("text") as events:
        spark.read.parquet(seed).select("name").coalesce(1).write.text(text)
        spark.read.text(text).select(F.upper("value").alias("value")).write.text(upper)

    first = events.child("text.write_text.lines")
    # the text writer keeps the column's name; only its values reach the file
    assert lineage(first["outputs"][0]) == {"name": [(seed, "name", "IDENTITY")]}
    assert schema(first["outputs"][0]) == [("name", "string")]
    second = events.child("text.write_text.upper_lines")
    assert [d["name"] for d in second["inputs"]] == [text]
    assert schema(second["inputs"][0]) == [("value", "string")]
    assert lineage(second["outputs"][0]) == {"value": [(text, "value", "TRANSFORMATION")]}
    assert second["outputs"][0]["outputFacets"]["outputStatistics"]["rowCount"] == 3


def test_overwriting_a_path_is_an_overwrite(spark: Any, record: Any, seed: str, tmp_path: Path) -> None:
    target = str(tmp_path / "again")
    with record("overwrite") as events:
        spark.read.parquet(seed).write.mode("overwrite").parquet(target)
    (out,) = events.child("overwrite.write_parquet.again")["outputs"]
    assert out["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "OVERWRITE"
