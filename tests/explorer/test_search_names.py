"""Name search through `searchName`, the lower-cased name the writes keep: any substring in any case finds a
dataset, job, field or dataset alias; nodes written without it are found after the backfill; and on Neo4j the
search reads the TEXT index on it, not every node of the label."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import pytest
from django.conf import settings
from neo4j import ManagedTransaction
from rest_framework.test import APIClient

from lineage_app.graph import reads
from lineage_app.graph.driver import graph_driver, graph_write
from lineage_app.graph.model import Label
from lineage_app.graph.schema import TEXT_INDEXES, search_names_backfill
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from tests.events import dataset, run_event
from tests.graph.identity_events import symlinked

pytestmark = pytest.mark.django_db(transaction=True)

RUN_ID = "5d2f7e10-3c4b-4a59-8e6d-7f8091a2b3c4"
ORDERS = "dataset:s3://lake:warehouse/OrderLines"
JOB = "job:spark:Nightly.OrderLines_Load"
FIELD = "datasetField:s3://lake:warehouse/OrderLines:CustomerEmail"


@pytest.fixture
def posted(graph: Any, ingest_client: APIClient) -> None:
    written = symlinked("s3://lake", "warehouse/OrderLines", fields=[("CustomerEmail", "string")])
    body = [run_event("COMPLETE", run_id=RUN_ID, job="Nightly.OrderLines_Load", outputs=[written])]
    answer = ingest_client.post("/api/v1/lineage/batch", data=json.dumps(body), content_type="application/json")
    assert answer.json()["status"] == "success", answer.content
    assert events_apply(event_ids=list(LineageEvent.objects.values_list("id", flat=True))) == 1


def search(client: APIClient, **params: Any) -> list[tuple[str, dict[str, str]]]:
    response = client.get(f"/api/v1/search?{urlencode(params)}")
    assert response.status_code == 200, response.content
    return [(hit["id"], hit["matched"]) for hit in response.json()["results"]]


def test_a_name_is_found_by_any_substring_in_any_case(posted: None, read_client: APIClient) -> None:
    for q in ("rderli", "ORDERLINES", "warehouse/o", "WAREHOUSE/orderLINES"):
        assert (ORDERS, {"by": "name", "text": "warehouse/OrderLines"}) in search(read_client, q=q, types="dataset"), q
    assert search(read_client, q="lY.ORDERlines_", types="job") == [
        (JOB, {"by": "name", "text": "Nightly.OrderLines_Load"})
    ]
    assert search(read_client, q="erema", types="field") == [(FIELD, {"by": "name", "text": "CustomerEmail"})]
    # The catalog name the symlink gives (`sales.orders`) is an alias of the dataset.
    assert search(read_client, q="SALES.Ord", types="dataset") == [(ORDERS, {"by": "alias", "text": "sales.orders"})]
    assert search(read_client, q="orderlinez") == []


def test_exact_then_prefix_then_substring_then_shorter_first(
    graph: Any, ingest_client: APIClient, read_client: APIClient
) -> None:
    names = ["xorders", "Orders_Daily", "ORDERS", "orders_x", "big_orders_table"]
    body = [
        run_event("COMPLETE", run_id=RUN_ID, job="load", outputs=[dataset("db", name) for name in names]),
    ]
    answer = ingest_client.post("/api/v1/lineage/batch", data=json.dumps(body), content_type="application/json")
    assert answer.json()["status"] == "success", answer.content
    events_apply(event_ids=list(LineageEvent.objects.values_list("id", flat=True)))
    found = [matched["text"] for _, matched in search(read_client, q="Orders", types="dataset")]
    assert found == ["ORDERS", "orders_x", "Orders_Daily", "xorders", "big_orders_table"]


def _forget_search_names(tx: ManagedTransaction) -> None:
    """What a graph written before `searchName` looks like."""
    for label, prop in TEXT_INDEXES:
        tx.run(f"MATCH (n:{label}) REMOVE n.{prop}").consume()


def test_a_node_written_before_search_names_is_found_after_the_backfill(posted: None, read_client: APIClient) -> None:
    graph_write(_forget_search_names)
    assert search(read_client, q="orderlines") == []
    written = search_names_backfill(batch=1)
    assert written == {Label.DATASET: 1, Label.JOB: 1, Label.FIELD: 1, Label.DATASET_ALIAS: 2}
    assert [hit for hit, _ in search(read_client, q="orderlines")] == [ORDERS, JOB]
    assert search(read_client, q="sales.orders", types="dataset") == [(ORDERS, {"by": "alias", "text": "sales.orders"})]
    assert search_names_backfill() == dict.fromkeys(written, 0)


def _operators(plan: Any) -> list[str]:
    """The operator of every step of a PROFILE plan (Neo4j names them `Operator@database`)."""
    return [plan["operatorType"].split("@")[0]] + [op for child in plan.get("children", []) for op in _operators(child)]


def test_on_neo4j_a_name_search_reads_the_text_index_not_the_label(posted: None) -> None:
    if "arcadedb" in graph_driver().get_server_info().agent.lower():
        pytest.skip("the embedded ArcadeDB builds a range index, not a text one: it scans the label for CONTAINS")
    statements = {
        **{label.value: query for label, query in reads.SEARCH.items()},
        "alias": reads.SEARCH_DATASET_ALIASES,
    }
    for name, query in statements.items():
        with graph_driver().session(database=settings.NEO4J_DATABASE) as session:
            profile = session.run(f"PROFILE {query}", q="orderl", limit=20).consume().profile
        operators = _operators(profile)
        assert "NodeIndexContainsScan" in operators, (name, operators)
        assert "NodeByLabelScan" not in operators, (name, operators)
