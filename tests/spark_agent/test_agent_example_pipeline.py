"""The example pipeline emits real lineage: a chain of jobs, a job whose second run changes its
inputs and its schema, a failure, declared owners, and a signature on every event."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agent_support import EventValidator, read_events, schema

from examples import pipeline
from lineage_protocol import (
    HEARTBEAT_FACET,
    VerificationStatus,
    check_event,
    key_id,
    load_public_key,
    read_signature,
)
from lineage_protocol.keygen import main as keygen
from tests.browser.example_pipeline import (
    CLEAN_ORDERS_ACTION,
    CLEAN_ORDERS_ADDED_INPUT,
    CLEAN_ORDERS_DROPPED_INPUT,
    CLEAN_ORDERS_KEPT_INPUTS,
)

pytestmark = pytest.mark.spark


def test_the_example_pipeline_shows_lineage_an_input_and_schema_change_and_a_failure(
    spark: Any, tmp_path: Path, validator: EventValidator
) -> None:
    path = tmp_path / "events.jsonl"
    assert keygen(["--out", str(tmp_path / "keys"), "--name", "example"]) == 0
    unexpected = pipeline.run(
        spark,
        tmp_path,
        transport="file",
        file_path=str(path),
        signing_key_path=str(tmp_path / "keys" / "example.key"),
    )
    assert unexpected == 0
    events = read_events(path)
    for event in events:
        validator.validate(event)

    public = load_public_key(tmp_path / "keys" / "example.pub.pem")
    keys = {key_id(public): public}
    assert {check_event(e, keys=keys).status for e in events} == {VerificationStatus.VERIFIED}

    def owners(node: dict[str, Any]) -> list[str]:
        facet = node.get("facets", {}).get("ownership")
        return [o["name"] for o in facet["owners"]] if facet else []

    lake = tmp_path / "lake"
    outputs = {d["name"]: owners(d) for e in events for d in e["outputs"]}
    assert outputs[str(lake / "bronze/orders")] == ["team:data-platform"]
    assert outputs[str(lake / "bronze/customers")] == ["team:data-platform"]
    assert outputs[str(lake / "silver/orders_clean")] == ["team:data-platform"]
    gold = [
        d
        for e in events
        for d in e["outputs"]
        if d["facets"].get("symlinks", {}).get("identifiers", [{}])[0].get("name") == "default.daily_revenue"
    ]
    assert gold and all(owners(d) == ["team:finance-analytics"] for d in gold)
    assert outputs[str(lake / "quality/orders_checked")] == []
    inputs = {d["name"]: owners(d) for e in events for d in e["inputs"]}
    assert inputs[str(lake / "raw/orders.csv")] == []
    jobs = {e["job"]["name"]: owners(e["job"]) for e in events}
    assert jobs["ingest_orders"] == jobs["clean_orders"] == ["team:data-platform"]
    assert jobs["daily_revenue"] == ["team:finance-analytics"]
    assert jobs["daily_revenue.create_table.default_daily_revenue"] == ["team:finance-analytics"]
    assert jobs["validate_orders"] == []
    # Each application's agent ends with a heartbeat of its chain (docs/ledger.md), which is no application.
    heartbeats = [e for e in events if HEARTBEAT_FACET in e["run"]["facets"]]
    assert len(heartbeats) == 7
    # Each application's stream follows the head the one before kept beside the file.
    firsts = [c for e in events if (c := read_signature(e).chain) is not None and c.seq == 1]
    heads = [e["run"]["facets"][HEARTBEAT_FACET]["head"] for e in heartbeats]
    assert [c.prev for c in firsts] == [None, *heads[:-1]]
    apps = [
        (e["job"]["name"], e["eventType"])
        for e in events
        if "parent" not in e["run"]["facets"] and HEARTBEAT_FACET not in e["run"]["facets"]
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
    writes = [e for e in events if e["eventType"] == "COMPLETE" and e["outputs"] and e["outputs"][0]["name"] == silver]
    # Both `clean_orders` runs are one action job, children of the one application, in two runs.
    assert [e["job"]["name"] for e in writes] == [CLEAN_ORDERS_ACTION, CLEAN_ORDERS_ACTION]
    assert [e["run"]["facets"]["parent"]["job"]["name"] for e in writes] == ["clean_orders", "clean_orders"]
    assert writes[0]["run"]["runId"] != writes[1]["run"]["runId"]
    # The second run stops reading the hold list and reads the EUR rates instead.
    kept = {str(lake / path) for path in CLEAN_ORDERS_KEPT_INPUTS}
    first_inputs, second_inputs = ({d["name"] for d in e["inputs"]} for e in writes)
    assert first_inputs == kept | {str(lake / CLEAN_ORDERS_DROPPED_INPUT)}
    assert second_inputs == kept | {str(lake / CLEAN_ORDERS_ADDED_INPUT)}
    first_rows, second_rows = (e["outputs"][0]["outputFacets"]["outputStatistics"]["rowCount"] for e in writes)
    assert first_rows < second_rows, "the first run dropped the orders of the customers on hold"
    first, second = (schema(e["outputs"][0]) for e in writes)
    assert ("currency", "string") in first and ("currency", "string") not in second
    assert ("amount_eur", "double") in second
    amount_eur = writes[1]["outputs"][0]["facets"]["columnLineage"]["fields"]["amount_eur"]["inputFields"]
    assert {(d["name"], d["field"]) for d in amount_eur} == {
        (str(lake / "bronze/orders"), "amount"),
        (str(lake / CLEAN_ORDERS_ADDED_INPUT), "rate_to_eur"),
    }
    failed = [e for e in events if e["eventType"] == "FAIL" and "parent" in e["run"]["facets"]]
    assert [e["job"]["name"] for e in failed] == ["validate_orders.write_parquet.orders_checked"]
    assert "negative amount in order 250" in failed[0]["run"]["facets"]["errorMessage"]["stackTrace"]
