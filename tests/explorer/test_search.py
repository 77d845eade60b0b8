"""Search by run id, tag and owner, and fields with their dataset and description: events posted over HTTP,
applied by the real projection, found through `GET /api/v1/search`."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

import pytest
from neo4j import ManagedTransaction
from rest_framework.test import APIClient

from lineage_app.graph.driver import graph_read, graph_write, records
from lineage_app.graph.model import Label
from lineage_app.graph.schema import tags_backfill
from lineage_app.ingest.consistency import runs_differences
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from lineage_app.ownership.services.owners import assignment_create
from tests.events import T0, dataset, dbt_run, run_event, tags

pytestmark = pytest.mark.django_db(transaction=True)

RUN_ID = "3f0e5c52-9b1d-4c8e-a7f1-2f5d0c9b8e11"
OTHER_RUN = "0c1b2a39-4d5e-4f60-8a7b-9c8d7e6f5a41"
ORDERS, CUSTOMERS = "dataset:postgres://db:5432:analytics.orders", "dataset:postgres://db:5432:analytics.customers"
MODEL = "job:dbt:analytics.orders"


@pytest.fixture
def posted(graph: Any, ingest_client: APIClient) -> None:
    customers = run_event(
        "COMPLETE",
        run_id=OTHER_RUN,
        namespace="dbt",
        job="analytics.customers",
        outputs=[dataset("postgres://db:5432", "analytics.customers", fields=[("email", "string")], owners=["alice"])],
    )
    body = [*dbt_run(RUN_ID, model="analytics.orders"), customers]
    answer = ingest_client.post("/api/v1/lineage/batch", data=json.dumps(body), content_type="application/json")
    assert answer.json()["status"] == "success", answer.content
    assert events_apply(event_ids=list(LineageEvent.objects.values_list("id", flat=True))) == 3


def search(client: APIClient, **params: Any) -> list[dict[str, Any]]:
    response = client.get(f"/api/v1/search?{urlencode(params)}")
    assert response.status_code == 200, response.content
    return response.json()["results"]


def test_a_run_id_finds_that_run_with_its_job(posted: None, read_client: APIClient) -> None:
    expected = {
        "id": f"run:{RUN_ID}",
        "type": "RUN",
        "namespace": "dbt",
        "name": "analytics.orders",
        "matched": {"by": "runId", "text": RUN_ID},
        "runId": RUN_ID,
        "state": "COMPLETED",
        "job": MODEL,
    }
    assert search(read_client, q=RUN_ID) == [expected]
    assert search(read_client, q=f"  {RUN_ID.upper()} ") == [expected]
    assert search(read_client, q=f"run:{RUN_ID}") == [expected]
    assert search(read_client, q="9b3c0a2e-0000-4000-8000-000000000000") == []
    assert search(read_client, q=RUN_ID, types="dataset,job") == []


def test_a_tag_finds_the_jobs_datasets_and_runs_that_carry_it(posted: None, read_client: APIClient) -> None:
    hits = search(read_client, q="pii")
    assert [(h["id"], h["type"], h["matched"]) for h in hits] == [
        (ORDERS, "DATASET", {"by": "tag", "text": "pii:true"}),
    ]
    assert [(h["id"], h["matched"]["text"]) for h in search(read_client, q="domain:finance")] == [
        (MODEL, "domain:finance")
    ]
    run_hits = search(read_client, q="tag:production")
    assert [(h["id"], h["type"], h["job"], h["matched"]) for h in run_hits] == [
        (f"run:{RUN_ID}", "RUN", MODEL, {"by": "tag", "text": "environment:production"})
    ]
    assert search(read_client, q="tag:gold", types="job") == []
    # A tag's text is searched in its key and value only: a word elsewhere in the facets is no tag.
    assert search(read_client, q="tag:DBT") == []


def test_an_owner_finds_what_they_own(posted: None, read_client: APIClient) -> None:
    hits = search(read_client, q="owner:analytics")
    assert [(h["id"], h["matched"]) for h in hits] == [(ORDERS, {"by": "owner", "text": "team:analytics"})]
    hits = search(read_client, q="alice")
    assert [(h["id"], h["matched"]) for h in hits] == [(CUSTOMERS, {"by": "owner", "text": "alice"})]


def test_an_owner_the_admin_assigns_wins_over_the_one_events_named(posted: None, read_client: APIClient) -> None:
    assignment_create(
        owner="bob", target_type="dataset", namespace="postgres://db:5432", name="analytics.orders", role="owner"
    )
    assert search(read_client, q="owner:analytics") == []
    assert [(h["id"], h["matched"]) for h in search(read_client, q="owner:bob")] == [
        (ORDERS, {"by": "owner", "text": "bob"})
    ]


def test_a_field_hit_names_its_dataset_and_the_description_its_schema_gives(
    posted: None, read_client: APIClient
) -> None:
    hits = search(read_client, q="order_id", types="field")
    assert hits == [
        {
            "id": "datasetField:postgres://db:5432:analytics.orders:order_id",
            "type": "DATASET_FIELD",
            "namespace": "postgres://db:5432",
            "name": "order_id",
            "matched": {"by": "name", "text": "order_id"},
            "dataset": "analytics.orders",
            "description": "The order's key, from the shop",
        }
    ]
    nested = {h["id"]: h for h in search(read_client, q="email", types="field")}
    assert nested["datasetField:postgres://db:5432:analytics.orders:customer.email"]["description"] == "PII"
    assert nested["datasetField:postgres://db:5432:analytics.customers:email"]["description"] is None
    assert [h["description"] for h in search(read_client, q="amount", types="field")] == [None]


def test_a_name_match_comes_before_a_tag_or_owner_match_of_the_same_node(posted: None, read_client: APIClient) -> None:
    hits = search(read_client, q="analytics", types="dataset,job")
    # Every one is a prefix match of its name (shorter names first); `team:analytics` owns the orders
    # dataset too, but a node is listed once, by its best match.
    assert [(h["id"], h["matched"]["by"]) for h in hits] == [
        (ORDERS, "name"),
        (MODEL, "name"),
        (CUSTOMERS, "name"),
        ("job:dbt:analytics.customers", "name"),
    ]


@pytest.mark.parametrize("q", ["tag:", "owner:", "run:", "run:not-a-uuid"])
def test_an_empty_or_malformed_scoped_search_finds_nothing(posted: None, read_client: APIClient, q: str) -> None:
    assert search(read_client, q=q) == []


def test_a_tag_the_latest_event_replaced_finds_nothing(
    posted: None, ingest_client: APIClient, read_client: APIClient
) -> None:
    later = dbt_run(RUN_ID, model="analytics.orders", at_minutes=30)[1]
    later["run"]["runId"] = "5e2d1c0b-8a79-4f6e-9d5c-4b3a29180f7e"
    later["job"]["facets"] = {"tags": tags(("domain", "risk"))}
    answer = ingest_client.post("/api/v1/lineage", data=json.dumps(later), content_type="application/json")
    assert answer.status_code == 201, answer.content
    events_apply(event_ids=[answer.json()["id"]])
    assert [h["matched"]["text"] for h in search(read_client, q="domain", types="job")] == ["domain:risk"]
    assert search(read_client, q="tag:finance", types="job") == []


# Twelve datasets whose ids sort the other way round from their names' lengths: `aaaaaaaaaaaaz` sorts before `az`.
_LONG_FIRST = [f"warehouse.{'a' * (13 - i)}z" for i in range(12)]


@pytest.fixture
def many_owned_and_tagged(graph: Any, ingest_client: APIClient) -> None:
    outputs = []
    for name in _LONG_FIRST:
        output = dataset("postgres://db:5432", name, owners=["team:carol"])
        output["facets"]["tags"] = tags(("tier", "gold"))
        outputs.append(output)
    body = [run_event("COMPLETE", run_id=RUN_ID, namespace="spark", job="load.warehouse", outputs=outputs)]
    answer = ingest_client.post("/api/v1/lineage/batch", data=json.dumps(body), content_type="application/json")
    assert answer.json()["status"] == "success", answer.content
    assert events_apply(event_ids=list(LineageEvent.objects.values_list("id", flat=True))) == 1


@pytest.mark.parametrize("q", ["owner:carol", "tag:gold", "carol", "gold"])
def test_a_page_of_owner_or_tag_matches_holds_the_shortest_names(
    many_owned_and_tagged: None, read_client: APIClient, q: str
) -> None:
    """Owner and tag matches are ordered by the graph as search ranks them (match, then name length), so the page
    the engine cuts is the best page: not the matches whose ids happen to sort first."""
    response = read_client.get(f"/api/v1/search?{urlencode({'q': q, 'limit': 5, 'types': 'dataset'})}")
    assert response.status_code == 200, response.content
    shortest = sorted(_LONG_FIRST, key=len)
    assert [hit["name"] for hit in response.json()["results"]] == shortest[:5]
    assert response.json()["more"] is True


# The example pipeline's lake, as `clean_orders` wrote it, by (name, the owners its `ownership` facet names, the
# owner an admin set by hand). A hand-set owner replaces the ones events named (`graph.ownership.owners_for`): the
# four datasets that `team:crm` took over are `team:data-platform`'s no more, and their short names sort first.
_LAKE = [
    ("/lake/bronze/orders", ["team:data-platform"], None),
    ("/lake/bronze/customers", ["team:data-platform"], None),
    ("/lake/silver/orders_clean", ["team:data-platform", "team:data-quality"], None),
    ("/lake/silver/customers_clean", ["team:data-platform"], None),
    ("/lake/quality/orders_checked", ["dana"], "team:data-quality"),
    ("/lake/raw/orders.csv", ["team:data-platform"], "team:crm"),
    ("/lake/raw/refunds.csv", ["team:data-platform"], "team:crm"),
    ("/lake/raw/customers.json", ["team:data-platform"], "team:crm"),
    ("/lake/bronze/refunds", ["team:data-platform"], "team:crm"),
    ("/lake/gold/eur_revenue", ["team:finance-analytics"], None),
    ("/lake/gold/daily_revenue", ["team:finance-analytics", "team:finance-reporting"], None),
    ("/lake/gold/revenue_by_month", ["team:finance-reporting", "team:finance-analytics"], None),
]


@pytest.fixture
def lake_owners(graph: Any, ingest_client: APIClient) -> None:
    outputs = [dataset("file", name, owners=owners) for name, owners, _ in _LAKE]
    body = [run_event("COMPLETE", run_id=RUN_ID, namespace="spark", job="clean_orders", outputs=outputs)]
    answer = ingest_client.post("/api/v1/lineage/batch", data=json.dumps(body), content_type="application/json")
    assert answer.json()["status"] == "success", answer.content
    assert events_apply(event_ids=list(LineageEvent.objects.values_list("id", flat=True))) == 1
    for name, _, by_hand in _LAKE:
        if by_hand:
            assignment_create(owner=by_hand, target_type="dataset", namespace="file", name=name, role="owner")


def owner_page(client: APIClient, *, q: str, limit: int) -> tuple[list[tuple[str, str]], bool]:
    """The page's (dataset name, matching owner) pairs, and `more`."""
    response = client.get(f"/api/v1/search?{urlencode({'q': q, 'limit': limit, 'types': 'dataset'})}")
    assert response.status_code == 200, response.content
    hits = response.json()["results"]
    assert len({hit["id"] for hit in hits}) == len(hits), hits
    assert all(hit["matched"]["by"] == "owner" for hit in hits), hits
    return [(hit["name"], hit["matched"]["text"]) for hit in hits], response.json()["more"]


@pytest.mark.parametrize("q", ["owner:finance", "finance"])
def test_a_node_two_matching_owners_own_is_one_hit_and_the_page_stays_full(
    lake_owners: None, read_client: APIClient, q: str
) -> None:
    """Both finance teams own two of the gold datasets: each is one hit (by the owner that matches best, then
    the first by name), and takes one place on the page, not one per owner."""
    every = [
        ("/lake/gold/eur_revenue", "team:finance-analytics"),
        ("/lake/gold/daily_revenue", "team:finance-analytics"),
        ("/lake/gold/revenue_by_month", "team:finance-analytics"),
    ]
    assert owner_page(read_client, q=q, limit=1) == (every[:1], True)
    assert owner_page(read_client, q=q, limit=2) == (every[:2], True)
    assert owner_page(read_client, q=q, limit=3) == (every, False)
    assert owner_page(read_client, q=q, limit=50) == (every, False)


@pytest.mark.parametrize("q", ["owner:team:data", "team:data"])
def test_datasets_whose_named_owner_an_admin_replaced_leave_the_page_full(
    lake_owners: None, read_client: APIClient, q: str
) -> None:
    """The four datasets `team:crm` took over by hand have the shortest names, so they sort first among the
    Owner's edges: the page is still full of the datasets `team:data-…` owns now, shortest name first, then by id,
    and `more` is true exactly while some are left out."""
    every = [
        ("/lake/bronze/orders", "team:data-platform"),
        ("/lake/bronze/customers", "team:data-platform"),
        ("/lake/silver/orders_clean", "team:data-platform"),
        ("/lake/quality/orders_checked", "team:data-quality"),  # by hand, over `dana`
        ("/lake/silver/customers_clean", "team:data-platform"),
    ]
    for limit in range(1, len(every)):
        assert owner_page(read_client, q=q, limit=limit) == (every[:limit], True), limit
    assert owner_page(read_client, q=q, limit=len(every)) == (every, False)
    assert owner_page(read_client, q=q, limit=50) == (every, False)
    assert owner_page(read_client, q="owner:crm", limit=50) == (
        [
            ("/lake/bronze/refunds", "team:crm"),
            ("/lake/raw/orders.csv", "team:crm"),
            ("/lake/raw/refunds.csv", "team:crm"),
            ("/lake/raw/customers.json", "team:crm"),
        ],
        False,
    )


# The example pipeline's lake, tagged by `clean_orders`: by (name, the tags its first run gave it, the tags its run
# half an hour later gave it instead; None: that run did not write it). The later run dropped `pii:true` from the
# datasets it masked (`pii_masked:true` now, a prefix match of `pii`) and from the raw files; those have the
# shortest names, so the `TAGGED` edges every tag keeps would sort them first. `refunds.csv` has no tag left.
_TAGGED_LAKE = [
    ("/lake/raw/orders.csv", [("pii", "true")], [("tier", "raw")]),
    ("/lake/raw/customers.json", [("pii", "true")], [("tier", "raw")]),
    ("/lake/bronze/orders", [("pii", "true")], [("pii_masked", "true")]),
    ("/lake/bronze/refunds", [("pii", "true")], [("pii_masked", "true")]),
    ("/lake/raw/refunds.csv", [("pii", "true")], []),
    ("/lake/bronze/customers", [("pii", "true")], None),
    ("/lake/silver/orders_clean", [("pii", "true"), ("tier", "silver")], None),
    ("/lake/silver/customers_clean", [("pii", "email"), ("pii", "address")], None),
    ("/lake/quality/orders_checked", [("pii", "true")], None),
    ("/lake/gold/daily_revenue", [("tier", "gold")], None),
]
LATER_RUN = "8b7c6d5e-4f30-4a21-9b12-0c3d4e5f6a7b"


def _post_tagged(ingest_client: APIClient, *, run_id: str, at_minutes: int, column: int) -> None:
    outputs = []
    for row in _TAGGED_LAKE:
        if row[column] is not None:
            output = dataset("file", row[0])
            output["facets"]["tags"] = tags(*row[column], source="USER")
            outputs.append(output)
    event = run_event(
        "COMPLETE",
        run_id=run_id,
        namespace="spark",
        job="clean_orders",
        at=T0 + timedelta(minutes=at_minutes),
        outputs=outputs,
    )
    answer = ingest_client.post("/api/v1/lineage", data=json.dumps(event), content_type="application/json")
    assert answer.status_code == 201, answer.content
    events_apply(event_ids=[answer.json()["id"]])


@pytest.fixture
def lake_tags(graph: Any, ingest_client: APIClient) -> None:
    _post_tagged(ingest_client, run_id=RUN_ID, at_minutes=0, column=1)
    _post_tagged(ingest_client, run_id=LATER_RUN, at_minutes=30, column=2)


def tag_page(client: APIClient, *, q: str, limit: int) -> tuple[list[tuple[str, str]], bool]:
    """The page's (dataset name, matching tag) pairs, and `more`."""
    response = client.get(f"/api/v1/search?{urlencode({'q': q, 'limit': limit, 'types': 'dataset'})}")
    assert response.status_code == 200, response.content
    hits = response.json()["results"]
    assert len({hit["id"] for hit in hits}) == len(hits), hits
    assert all(hit["matched"]["by"] == "tag" for hit in hits), hits
    return [(hit["name"], hit["matched"]["text"]) for hit in hits], response.json()["more"]


# What `pii` finds now: the tag, its key or its value `pii` first (shorter names first, then by id: `quality`
# before `silver`), `customers_clean` once, by the first of its two `pii:` tags; then the masked ones, a prefix.
_PII_NOW = [
    ("/lake/bronze/customers", "pii:true"),
    ("/lake/silver/orders_clean", "pii:true"),
    ("/lake/quality/orders_checked", "pii:true"),
    ("/lake/silver/customers_clean", "pii:address"),
    ("/lake/bronze/orders", "pii_masked:true"),
    ("/lake/bronze/refunds", "pii_masked:true"),
]


@pytest.mark.parametrize("q", ["tag:pii", "pii"])
def test_datasets_whose_tag_a_later_event_dropped_leave_the_page_full(
    lake_tags: None, read_client: APIClient, q: str
) -> None:
    """The raw files no longer carry `pii:true`, and the masked datasets match by `pii_masked:true` only: every
    page is full of the datasets that carry a matching tag now, best first, and `more` is true exactly while some
    are left out."""
    for limit in range(1, len(_PII_NOW)):
        assert tag_page(read_client, q=q, limit=limit) == (_PII_NOW[:limit], True), limit
    assert tag_page(read_client, q=q, limit=len(_PII_NOW)) == (_PII_NOW, False)
    assert tag_page(read_client, q=q, limit=50) == (_PII_NOW, False)
    assert tag_page(read_client, q="tag:tier", limit=50) == (
        [
            ("/lake/raw/orders.csv", "tier:raw"),
            ("/lake/gold/daily_revenue", "tier:gold"),  # as long as `customers.json`, its id first
            ("/lake/raw/customers.json", "tier:raw"),
            ("/lake/silver/orders_clean", "tier:silver"),
        ],
        False,
    )


@pytest.mark.parametrize("q", ["tag:pii:", "pii:"])
def test_a_dataset_with_two_matching_tags_is_one_hit(lake_tags: None, read_client: APIClient, q: str) -> None:
    """`customers_clean` carries `pii:email` and `pii:address`, both prefixes of `pii:`: one hit, by the first
    tag, taking one place on the page."""
    every = [
        ("/lake/bronze/customers", "pii:true"),
        ("/lake/silver/orders_clean", "pii:true"),
        ("/lake/quality/orders_checked", "pii:true"),
        ("/lake/silver/customers_clean", "pii:address"),
    ]
    for limit in range(1, len(every)):
        assert tag_page(read_client, q=q, limit=limit) == (every[:limit], True), limit
    assert tag_page(read_client, q=q, limit=len(every)) == (every, False)


def _forget_tags(tx: ManagedTransaction) -> None:
    """What a graph written before nodes kept their current tags looks like."""
    for label in (Label.DATASET, Label.JOB, Label.RUN):
        tx.run(f"MATCH (n:{label}) REMOVE n.tags").consume()


def test_a_node_written_before_its_current_tags_were_kept_is_found_after_the_backfill(
    lake_tags: None, read_client: APIClient
) -> None:
    graph_write(_forget_tags)
    assert tag_page(read_client, q="tag:pii", limit=50) == ([], False)
    with_facets = graph_read(_with_facets)
    assert with_facets[Label.DATASET] >= 10 and with_facets[Label.RUN] > 0
    assert tags_backfill(batch=2) == with_facets  # every node with facets, tagged or not, in batches of two
    assert tag_page(read_client, q="tag:pii", limit=50) == (_PII_NOW, False)
    assert tags_backfill() == {Label.DATASET: 0, Label.JOB: 0, Label.RUN: 0}
    # The graph check compares each run's `tags` with its fold's: a run written before them differs no more.
    run_ids = [r["id"] for r in graph_read(lambda tx: records(tx, f"MATCH (r:{Label.RUN}) RETURN r.runId AS id"))]
    assert runs_differences(run_ids=run_ids) == []


def _with_facets(tx: ManagedTransaction) -> dict[Label, int]:
    return {
        label: records(tx, f"MATCH (n:{label}) WHERE n.facetsJson IS NOT NULL RETURN count(n) AS n")[0]["n"]
        for label in (Label.DATASET, Label.JOB, Label.RUN)
    }
