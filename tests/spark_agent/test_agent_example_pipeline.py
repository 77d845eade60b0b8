"""The example pipeline emits real lineage: a chain of jobs, a schema change and a failure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agent_support import EventValidator, read_events, schema

from examples import pipeline

pytestmark = pytest.mark.spark


def test_the_example_pipeline_shows_lineage_a_schema_change_and_a_failure(
    spark: Any, tmp_path: Path, validator: EventValidator
) -> None:
    path = tmp_path / "events.jsonl"
    unexpected = pipeline.run(spark, tmp_path, transport="file", file_path=str(path))
    assert unexpected == 0
    events = read_events(path)
    for event in events:
        validator.validate(event)
    apps = [
        (e["job"]["name"], e["eventType"]) for e in events if "parent" not in e["run"]["facets"]
    ]
    ends = [a for a in apps if a[1] != "START"]
    assert ends == [
        ("ingest_orders", "COMPLETE"),
        ("ingest_customers", "COMPLETE"),
        ("clean_orders", "COMPLETE"),
        ("daily_revenue", "COMPLETE"),
        ("clean_orders", "COMPLETE"),
        ("daily_revenue", "COMPLETE"),
        ("validate_orders", "FAIL"),
    ]
    silver = str(tmp_path / "lake/silver/orders_clean")
    writes = [
        e["outputs"][0]
        for e in events
        if e["eventType"] == "COMPLETE" and e["outputs"] and e["outputs"][0]["name"] == silver
    ]
    first, second = (schema(w) for w in writes)
    assert ("currency", "string") in first and ("currency", "string") not in second
    assert ("amount_eur", "double") in second
    failed = [e for e in events if e["eventType"] == "FAIL" and "parent" in e["run"]["facets"]]
    assert [e["job"]["name"] for e in failed] == ["validate_orders.write_parquet.orders_checked"]
    assert (
        "negative amount in order 250" in failed[0]["run"]["facets"]["errorMessage"]["stackTrace"]
    )
