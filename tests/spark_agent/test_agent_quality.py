"""`Agent.report_quality`: user code's data-quality results ride on the standard facets of the datasets they test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import spark_agent

pytestmark = pytest.mark.spark

ASSERTIONS = [
    {"assertion": "not_null", "success": True, "column": "id"},
    {"assertion": "non_negative", "success": False, "column": "price", "severity": "error", "actual": "1"},
]
METRICS = {"rowCount": 3, "columnMetrics": {"price": {"nullCount": 0, "distinctCount": 3}}}


def test_reported_quality_rides_on_the_final_event_of_actions_naming_the_dataset(
    spark: Any, record: Any, tmp_path: Path
) -> None:
    seed = str(tmp_path / "raw" / "seed")
    spark.createDataFrame([(1, 2.5), (2, -4.0), (3, 1.0)], "id INT, price DOUBLE").write.parquet(seed)
    with record("checks_app") as events:
        spark.read.parquet(seed).write.parquet(str(tmp_path / "before"))
        agent = spark_agent.current_agent()
        assert agent is not None
        agent.report_quality(f"file:{seed}", assertions=ASSERTIONS, metrics=METRICS)
        spark.read.parquet(seed).write.parquet(str(tmp_path / "checked"))

    # `record` has validated every facet against its OpenLineage schema already.
    before = events.child("checks_app.write_parquet.before", "COMPLETE")
    assert "dataQualityAssertions" not in before["inputs"][0]["facets"]  # reported after that action
    start = events.child("checks_app.write_parquet.checked", "START")
    assert "dataQualityAssertions" not in start["inputs"][0]["facets"]  # results go on the final event
    final = events.child("checks_app.write_parquet.checked", "COMPLETE")
    tested = final["inputs"][0]["facets"]
    assert tested["dataQualityAssertions"]["assertions"] == ASSERTIONS
    assert tested["dataQualityMetrics"]["rowCount"] == 3
    assert tested["dataQualityMetrics"]["columnMetrics"] == METRICS["columnMetrics"]
    assert "dataQualityAssertions" not in final["outputs"][0]["facets"]  # only the dataset reported on


def test_report_quality_refuses_a_dataset_without_a_name(spark: Any, record: Any) -> None:
    with record("nameless_app"):
        agent = spark_agent.current_agent()
        assert agent is not None
        with pytest.raises(ValueError, match="path or table name"):
            agent.report_quality("", assertions=ASSERTIONS)
