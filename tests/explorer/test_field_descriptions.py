"""Schema fields as dbt sends them: each keeps its description, and a type a later event fills in where
an earlier one sent none replaces the empty one without counting as schema drift."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from rest_framework.test import APIClient

from lineage_app.graph.impact import root_cause_events
from lineage_app.graph.node_resolve import node_resolve
from lineage_app.graph.schema_fields import schema_change
from lineage_app.instants import utc_text
from tests.apply import accept_and_apply
from tests.events import T0
from tests.explorer.test_read_api import get
from tests.graph.dbt_events import COLUMNS, NAMESPACE, TABLE, dbt_model_run, model_table_facets

pytestmark = pytest.mark.django_db

TABLE_ID = f"dataset:{NAMESPACE}:{TABLE}"
TYPES = {"order_id": "INTEGER", "status": "VARCHAR", "amount": "DECIMAL(18,2)"}
RUN_IDS = [f"5d2b7a10-2000-4000-8000-00000000000{i}" for i in range(8)]
DAY = T0 + timedelta(days=20)


def _run(day: int, **kwargs: Any) -> list[dict[str, Any]]:
    return dbt_model_run(
        run_id=RUN_IDS[2 * day], parent_run=RUN_IDS[2 * day + 1], at=DAY + timedelta(days=day), **kwargs
    )


def _fields(client: APIClient) -> dict[str, tuple[str | None, str | None]]:
    detail = get(client, "datasets/detail", nodeId=TABLE_ID)
    return {f["name"]: (f["type"], f["description"]) for f in detail["fields"] if f["current"]}


@pytest.mark.parametrize("arrival", ["in order", "reversed"])
def test_types_filled_in_later_replace_the_empty_ones_and_descriptions_are_kept(
    graph, read_client: APIClient, arrival: str
) -> None:
    """`dbt-ol run` without types, then after `dbt docs generate` with them, then without again."""
    runs = [
        *_run(0, description="Orders"),
        *_run(1, description="Orders", types=TYPES),
        *_run(2, description="Orders"),
    ]
    accept_and_apply(*(runs if arrival == "in order" else runs[::-1]), one_by_one=True)
    assert _fields(read_client) == {name: (TYPES[name], text) for name, text in COLUMNS}
    detail = get(read_client, "datasets/detail", nodeId=TABLE_ID)
    assert len(detail["versions"]) == 2  # with and without types: two versions, no drift between them
    first, filled = (v["version"] for v in detail["versions"])
    diff = get(read_client, "datasets/versions/diff", nodeId=TABLE_ID, **{"from": first, "to": filled})
    assert (diff["added"], diff["removed"], diff["changed"]) == ([], [], [])
    lineage = get(
        read_client,
        "lineage/diff",
        nodeId=TABLE_ID,
        depth=1,
        **{"from": utc_text(DAY - timedelta(hours=1)), "to": utc_text(DAY + timedelta(days=3))},
    )
    assert lineage["schemaChanges"] == []
    ref = node_resolve(node_id=TABLE_ID)
    assert [e for e in root_cause_events(refs=[ref])[ref] if e["kind"] == "schema_change"] == []


def test_a_real_retyping_is_still_schema_drift(graph, read_client: APIClient) -> None:
    retyped = {**TYPES, "order_id": "BIGINT"}
    accept_and_apply(*_run(0, description="Orders", types=TYPES), *_run(1, description="Orders", types=retyped))
    detail = get(read_client, "datasets/detail", nodeId=TABLE_ID)
    first, second = (v["version"] for v in detail["versions"])
    diff = get(read_client, "datasets/versions/diff", nodeId=TABLE_ID, **{"from": first, "to": second})
    assert diff["changed"] == [{"name": "order_id", "fromType": "INTEGER", "toType": "BIGINT"}]
    lineage = get(
        read_client,
        "lineage/diff",
        nodeId=TABLE_ID,
        depth=1,
        **{"from": utc_text(DAY + timedelta(hours=1)), "to": utc_text(DAY + timedelta(days=2))},
    )
    assert [c["changedFields"] for c in lineage["schemaChanges"]] == [
        [{"name": "order_id", "fromType": "INTEGER", "toType": "BIGINT"}]
    ]


@pytest.mark.parametrize("arrival", ["in order", "reversed"])
def test_a_fields_description_is_the_newest_one_sent(graph, read_client: APIClient, arrival: str) -> None:
    """The same schema version (names and types unchanged) sent again with a reworded description, then
    the table's schema with types and no descriptions (as a Spark job reading it sends it): the reworded
    description stays, and the types are filled in."""
    reworded = model_table_facets(description="Orders")
    reworded["schema"]["fields"][1]["description"] = "Order status: placed, shipped, returned or lost"
    bare = model_table_facets(description="Orders", types=TYPES)
    for field in bare["schema"]["fields"]:
        del field["description"]
    runs = [
        *_run(0, description="Orders"),
        *_run(1, description="Orders", table_facets=reworded),
        *_run(2, description="Orders", table_facets=bare),
    ]
    accept_and_apply(*(runs if arrival == "in order" else runs[::-1]), one_by_one=True)
    assert _fields(read_client)["status"] == ("VARCHAR", "Order status: placed, shipped, returned or lost")
    assert _fields(read_client)["amount"] == ("DECIMAL(18,2)", "In EUR")


def test_schema_change_ignores_a_type_only_one_side_knows() -> None:
    assert schema_change([("id", "")], [("id", "INTEGER")]) is None
    assert schema_change([("id", "INTEGER")], [("id", "")]) is None
    change = schema_change([("id", ""), ("x", "INT")], [("id", "INTEGER"), ("x", "BIGINT"), ("y", "")])
    assert change is not None
    assert (change.added, change.removed, change.retyped) == (["y"], [], ["x"])
    reordered = schema_change([("a", "INT"), ("b", "INT")], [("b", "INT"), ("a", "INT")])
    assert reordered is not None and (reordered.added, reordered.removed, reordered.retyped) == ([], [], [])
