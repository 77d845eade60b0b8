"""Name search through `searchName`, the lower-cased name the writes keep: any substring in any case finds a
dataset, job, field or dataset alias; exact names, then prefixes, then substrings, each tier read only while the
page is not full and at most a window of it ranked, and `more` saying whether more match than the page shows;
nodes written without it are found after the backfill; and on Neo4j the exact and prefix tiers read the ordered
index in order and the substring tier the TEXT index, never every node of the label."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import pytest
from django.conf import settings
from neo4j import ManagedTransaction
from rest_framework.test import APIClient

from lineage_app.explorer.selectors import search as search_selector
from lineage_app.graph import listings, reads
from lineage_app.graph.driver import graph_driver, graph_write
from lineage_app.graph.model import Label
from lineage_app.graph.schema import ORDER_INDEXES, TEXT_INDEXES, search_names_backfill
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from tests.events import dataset, run_event
from tests.graph.identity_events import CATALOG, symlinked
from tests.graph_plans import plan_operators

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


def _post_datasets(client: APIClient, *written: dict[str, Any]) -> None:
    body = [run_event("COMPLETE", run_id=RUN_ID, job="load", outputs=list(written))]
    answer = client.post("/api/v1/lineage/batch", data=json.dumps(body), content_type="application/json")
    assert answer.json()["status"] == "success", answer.content
    events_apply(event_ids=list(LineageEvent.objects.values_list("id", flat=True)))


def page(client: APIClient, **params: Any) -> tuple[list[str], bool]:
    """The names (or aliases) of one page of hits, and whether it says more match."""
    response = client.get(f"/api/v1/search?{urlencode(params)}")
    assert response.status_code == 200, response.content
    return [hit["matched"]["text"] for hit in response.json()["results"]], response.json()["more"]


@pytest.fixture
def tiers(graph: Any, ingest_client: APIClient) -> None:
    """For `orders`: one exact name, three prefixes (one of them also a substring, by its alias `sales.orders`),
    two substrings."""
    names = ["big_orders", "orders_aa", "x_orders", "orders_b", "orders"]
    _post_datasets(ingest_client, *(dataset("db", name) for name in names), symlinked("db", "orders_c"))


def test_a_page_is_filled_across_tiers_each_node_once_by_its_best_match(tiers: None, read_client: APIClient) -> None:
    everything = ["orders", "orders_b", "orders_c", "orders_aa", "x_orders", "big_orders"]
    assert page(read_client, q="orders", types="dataset") == (everything, False)
    # `orders_c` is a prefix by its name and a substring by its alias: once, as the prefix.
    found = search(read_client, q="ORDERS", types="dataset")
    assert [hit for hit, _ in found].count("dataset:db:orders_c") == 1
    assert ("dataset:db:orders_c", {"by": "name", "text": "orders_c"}) in found
    # Exact, prefixes and the best substring fill a page of five; a sixth match is said to be there.
    assert page(read_client, q="orders", types="dataset", limit=5) == (everything[:5], True)
    assert page(read_client, q="orders", types="dataset", limit=4) == (everything[:4], True)
    assert page(read_client, q="orders", types="dataset", limit=6) == (everything, False)
    # The alias alone: `sales.orders` is only a substring of other names.
    assert page(read_client, q=CATALOG[1], types="dataset") == (["sales.orders"], False)


def test_a_search_reads_no_tier_after_the_one_that_fills_its_page(
    tiers: None, read_client: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[int] = []
    tier_rows = listings.search_tier_rows

    def recorded(**params: Any) -> Any:  # a spy: the real statements run, the tiers read are written down
        read.append(params["rank"])
        return tier_rows(**params)

    monkeypatch.setattr(listings, "search_tier_rows", recorded)
    # One exact and three prefixes: a page of three, with one more to tell there are more, needs no substring.
    assert page(read_client, q="orders", types="dataset", limit=3) == (["orders", "orders_b", "orders_c"], True)
    assert read == [0, 1]
    read.clear()
    assert page(read_client, q="orders", types="dataset", limit=4)[1] is True
    assert read == [0, 1, 2]
    read.clear()
    assert page(read_client, q="orders_b", types="dataset") == (["orders_b"], False)
    assert read == [0, 1, 2]


def test_a_tier_broader_than_its_window_ranks_its_first_names_in_name_order(
    graph: Any, ingest_client: APIClient, read_client: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    exact = [dataset(namespace, "ab") for namespace in ("n3", "n1", "n2")]
    _post_datasets(ingest_client, *exact, *(dataset("db", name) for name in ("ab_z", "ab_b_longer", "ab_a_long")))
    assert page(read_client, q="ab_", types="dataset", limit=1) == (["ab_z"], True)  # the shortest, ranked whole
    monkeypatch.setattr(search_selector, "SEARCH_WINDOW", 2)
    # Two prefixes ranked, the first two by name: `ab_z` is not among them.
    assert page(read_client, q="ab_", types="dataset", limit=1) == (["ab_a_long"], True)
    # The exact tier ranks the least node ids of its window: the page ranking every match would show.
    assert [hit for hit, _ in search(read_client, q="AB", types="dataset", limit=1)] == ["dataset:n1:ab"]


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


def test_on_neo4j_the_tiers_read_their_indexes_and_cut_the_window_unsorted(posted: None) -> None:
    if "arcadedb" in graph_driver().get_server_info().agent.lower():
        pytest.skip("the embedded ArcadeDB builds range indexes, not text ones: it scans the label for CONTAINS")
    # Plans made by earlier tests of the session, on other graphs, may be cached: plan from this graph's statistics.
    with graph_driver().session(database=settings.NEO4J_DATABASE) as session:
        session.run("CALL db.prepareForReplanning()").consume()
    statements = {
        **{
            f"{label.value} {rank}": query
            for label, queries in reads.SEARCH.items()
            for rank, query in enumerate(queries)
        },
        **{f"alias {rank}": query for rank, query in enumerate(reads.SEARCH_DATASET_ALIASES)},
    }
    ordered = {f"RANGE INDEX {var}:{label}({prop}, {tie})" for label, prop, tie in ORDER_INDEXES for var in "an"}
    texts = {f"TEXT INDEX {var}:{label}({prop})" for label, prop in TEXT_INDEXES for var in "an"}
    for name, query in statements.items():
        with graph_driver().session(database=settings.NEO4J_DATABASE) as session:
            profile = session.run(f"PROFILE {query}", q="orderl", limit=20, window=1000).consume().profile
        operators = plan_operators(profile)
        found = [details for op, details in operators if op.startswith("NodeIndex")]
        assert len(found) == 1, (name, operators)
        if name.endswith("2"):  # substring: the TEXT index serves CONTAINS
            assert any(found[0].startswith(text) for text in texts), (name, operators)
        else:  # exact and prefix: a seek of the ordered index, read in its order
            assert any(found[0].startswith(index) for index in ordered), (name, operators)
            assert [op for op, _ in operators if op.startswith("NodeIndex")] == ["NodeIndexSeek"], (name, operators)
        # The window is cut as read, never sorted whole: no `Sort` or `Top` of `$window`.
        assert ("Limit", "$window") in operators, (name, operators)
        assert not [op for op, details in operators if op in ("Sort", "Top", "PartialSort") and "$window" in details]
        assert "NodeByLabelScan" not in [op for op, _ in operators], (name, operators)
