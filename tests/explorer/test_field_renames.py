"""A column renamed between two schema versions is told as a rename (`renamed`: old → new) wherever a
schema change is told, besides the removed and added fields it also stands as."""

from __future__ import annotations

from datetime import timedelta

import pytest
from rest_framework.test import APIClient

from lineage_app.graph.schema_fields import schema_change
from lineage_app.instants import utc_text
from tests.alerts.scenario import BRONZE, bronze, history, run
from tests.apply import accept_and_apply
from tests.events import T0
from tests.explorer.test_read_api import get

BRONZE_ID = "dataset:file:///lake:bronze/orders"
RENAMED = [("order_id", "bigint"), ("amount_usd", "double"), ("country", "string")]


def test_a_field_replaced_in_its_place_by_one_of_the_same_type_reads_as_a_rename() -> None:
    change = schema_change(BRONZE, RENAMED)
    assert change is not None
    assert (change.added, change.removed, change.renamed) == (["amount_usd"], ["amount"], [("amount", "amount_usd")])
    assert change.summary() == "renamed: amount → amount_usd"


@pytest.mark.parametrize(
    ("after", "why"),
    [
        ([("order_id", "bigint"), ("amount_usd", "decimal(18,2)"), ("country", "string")], "another type"),
        ([("order_id", "bigint"), ("country", "string"), ("amount_usd", "double")], "another place"),
        ([("order_id", "bigint"), ("country", "string")], "a field fewer"),
        ([*RENAMED, ("note", "string")], "a field more"),
        ([("order_id", "bigint"), ("country", "double"), ("amount", "string")], "fields that moved"),
    ],
)
def test_a_field_that_left_is_no_rename_when_its_successor_differs_in_type_or_place(
    after: list[tuple[str, str]], why: str
) -> None:
    change = schema_change(BRONZE, after)
    assert change is not None and change.renamed == [], why


def test_a_field_of_unknown_type_is_never_read_as_renamed() -> None:
    change = schema_change([("id", "bigint"), ("a", "")], [("id", "bigint"), ("b", "")])
    assert change is not None and change.renamed == [] and change.summary() == "added: b; removed: a"


@pytest.mark.django_db
def test_the_version_diff_the_lineage_diff_and_root_cause_name_the_rename(graph, read_client: APIClient) -> None:
    accept_and_apply(*history(), *run("ingest_orders", at=T0, output=bronze(RENAMED)))

    detail = get(read_client, "datasets/detail", nodeId=BRONZE_ID)
    first, second = (v["version"] for v in detail["versions"])
    diff = get(read_client, "datasets/versions/diff", nodeId=BRONZE_ID, **{"from": first, "to": second})
    assert diff["renamed"] == [{"from": "amount", "to": "amount_usd"}]
    assert (diff["removed"], diff["added"]) == (
        [{"name": "amount", "type": "double"}],
        [{"name": "amount_usd", "type": "double"}],
    )

    window = {"from": utc_text(T0 - timedelta(minutes=30)), "to": utc_text(T0 + timedelta(hours=1))}
    lineage = get(read_client, "lineage/diff", nodeId=BRONZE_ID, depth=1, **window)
    assert [c["renamedFields"] for c in lineage["schemaChanges"]] == [[{"from": "amount", "to": "amount_usd"}]]

    causes = get(read_client, "root-cause", nodeId="dataset:file:///lake:gold/revenue", depth=5)["results"]
    bronze_events = next(asset["events"] for asset in causes if asset["id"] == BRONZE_ID)
    change = next(e for e in bronze_events if e["kind"] == "schema_change")
    assert change["renamed"] == [{"from": "amount", "to": "amount_usd"}]
    assert change["message"] == "renamed: amount → amount_usd"
