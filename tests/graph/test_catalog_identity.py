"""Invariant 9 by the catalog: the `hierarchy` facet (with the `catalog` facet's metastore) names a table the same
way whichever producer spelled it, so one table reached by several names is one dataset, in any arrival order."""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import urlencode

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from lineage_app.graph.identity import (
    DECLARED,
    Link,
    catalog_namespace,
    declared_identifier,
    hierarchy_conflict,
    linked_identifiers,
)
from lineage_app.graph.writer import graph_wipe
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from tests.events import dataset, facet
from tests.graph.identity_events import (
    CONTRADICTED_ID,
    CUSTOMERS,
    DECLARED_TABLE,
    METASTORE,
    TABLE_ID,
    catalog_events,
    catalogued,
    iceberg_catalog,
)
from tests.graph_dump import graph_dump

HMS = iceberg_catalog("spark_catalog", "thrift://metastore-0:9083")

# --- the pure rule ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "namespace"),
    [
        ("thrift://metastore-0:9083", METASTORE),
        ("thrift://metastore-1:9083,thrift://metastore-0:9083", METASTORE),  # replicas in any order agree
        (" thrift://metastore-0:9083 , thrift://metastore-1:9083", METASTORE),
        ("THRIFT://metastore-0:9083/", METASTORE),
        ("http://polaris:8181/api/catalog/", "http://polaris:8181/api/catalog"),
        ("jdbc:mysql://db:3306/iceberg", "jdbc:mysql://db:3306/iceberg"),
        ("", None),
        (None, None),
    ],
)
def test_a_catalog_is_placed_by_its_metadata_uri(uri, namespace):  # type: ignore[no-untyped-def]
    catalog = iceberg_catalog("c", uri) if uri is not None else facet(framework="iceberg", type="hadoop", name="c")
    assert catalog_namespace(catalog) == namespace


def test_the_hierarchy_declares_the_table_in_the_catalog_whatever_the_name() -> None:
    by_location = catalogued("s3a://lake", "warehouse/sales.db/customers", catalog=HMS, levels=CUSTOMERS)
    by_trino = catalogued("trino://trino:8080", "iceberg.sales.customers", catalog=HMS, levels=CUSTOMERS)
    expected = Link(*DECLARED_TABLE, DECLARED, "TABLE")
    assert declared_identifier(by_location) == declared_identifier(by_trino) == expected
    assert expected in list(linked_identifiers(by_location))


def test_without_a_catalog_the_hierarchy_names_the_table_in_the_dataset_s_own_catalog_namespace() -> None:
    by_alias = catalogued(METASTORE, "spark_catalog.sales.customers", catalog=None, levels=CUSTOMERS)
    assert declared_identifier(by_alias) == Link(*DECLARED_TABLE, DECLARED, "TABLE")
    # A storage location is no catalog: with no catalog facet naming one, the hierarchy says nowhere.
    assert declared_identifier(catalogued("s3://lake", "x/customers", catalog=None, levels=CUSTOMERS)) is None


def test_a_catalog_needs_a_hierarchy_and_a_location_needs_a_catalog_uri() -> None:
    catalog_only = dataset("s3://lake", "warehouse/sales.db/customers")
    catalog_only["facets"]["catalog"] = HMS
    assert declared_identifier(catalog_only) is None
    hadoop = facet(framework="iceberg", type="hadoop", name="c", warehouseUri="s3://lake/warehouse")
    assert (
        declared_identifier(catalogued("s3://lake", "warehouse/sales/customers", catalog=hadoop, levels=CUSTOMERS))
        is None
    )
    assert declared_identifier(catalogued(METASTORE, "sales.customers", catalog=HMS, levels=[])) is None


@pytest.mark.parametrize(
    ("namespace", "name", "levels"),
    [
        (METASTORE, "sales.customers", ["sales", "customers"]),
        (METASTORE, "spark_catalog.sales.customers", ["sales", "customers"]),  # the engine's catalog alias
        (METASTORE, "customers", ["sales", "customers"]),  # the outer levels left out
        ("databricks://adb-1.azuredatabricks.net", "main.sales.customers", ["main", "sales", "customers"]),
        ("arn:aws:glue:eu-west-1:123456789012", "table/sales/customers", ["sales", "customers"]),
        (METASTORE, "SALES.Customers", ["sales", "customers"]),  # catalogs compare names without case
        ("s3://lake", "warehouse/anything/at/all", ["sales", "customers"]),  # a location need not spell it
    ],
)
def test_a_hierarchy_agrees_with_a_name_ending_in_its_levels(namespace, name, levels):  # type: ignore[no-untyped-def]
    ds = catalogued(namespace, name, catalog=HMS, levels=[{"type": "LEVEL", "name": n} for n in levels])
    assert hierarchy_conflict(ds) is None
    assert declared_identifier(ds) is not None


def test_a_hierarchy_contradicting_the_name_or_a_symlink_is_not_used() -> None:
    contradicted = catalogued(METASTORE, "sales.orders", catalog=HMS, levels=CUSTOMERS)
    assert hierarchy_conflict(contradicted) == (
        "hierarchy names the table 'sales.customers', but the event names the dataset 'sales.orders' in "
        f"'{METASTORE}': the name wins, the hierarchy is left out"
    )
    assert declared_identifier(contradicted) is None
    assert [link.kind for link in linked_identifiers(contradicted)] == []
    by_location = catalogued("s3://lake", "warehouse/sales.db/customers", catalog=HMS, levels=CUSTOMERS)
    by_location["facets"]["symlinks"] = facet(
        identifiers=[{"namespace": METASTORE, "name": "sales.orders", "type": "TABLE"}]
    )
    assert "'sales.orders'" in (hierarchy_conflict(by_location) or "")
    assert [(link.name, link.kind) for link in linked_identifiers(by_location)] == [("sales.orders", "symlink")]
    blank = catalogued(METASTORE, "sales.customers", catalog=HMS, levels=[{"type": "TABLE", "name": " "}])
    assert hierarchy_conflict(blank) == "hierarchy: a level has an empty name"


# --- HTTP in, graph out -------------------------------------------------------------------------------


def _post_and_apply(client: APIClient, events: list[dict[str, Any]], batches: list[list[int]]) -> list[dict]:
    """Post `events` in the order given; apply them in `batches` (positions in that order); the answers."""
    answers = []
    for event in events:
        response = client.post("/api/v1/lineage", event, format="json")
        assert response.status_code in (200, 201), response.content
        answers.append(response.json())
    ids = [answer["id"] for answer in answers]
    for batch in batches:
        events_apply(event_ids=[ids[i] for i in batch])
    return answers


def _get(client: APIClient, path: str, **params: Any) -> Any:
    response = client.get(f"/api/v1/{path}?{urlencode(params)}")
    assert response.status_code == 200, response.content
    return response.json()


EVENTS = catalog_events()
ORDERS = {
    "as they happened, one by one": (list(range(5)), [[i] for i in range(5)]),
    "backwards, one by one": ([4, 3, 2, 1, 0], [[i] for i in range(5)]),
    "the declared names first, then the location, with duplicates": (
        [3, 2, 3, 1, 4, 0, 2],
        [[0, 1], [2, 3], [4, 5, 6]],
    ),
    "one batch": (list(range(5)), [list(range(5))]),
}


@pytest.mark.django_db
@pytest.mark.parametrize(("order", "batches"), ORDERS.values(), ids=list(ORDERS))
def test_one_table_named_four_ways_by_three_producers_is_one_dataset(  # type: ignore[no-untyped-def]
    graph, ingest_client, read_client, order, batches
):
    answers = _post_and_apply(ingest_client, [copy.deepcopy(EVENTS[i]) for i in order], batches)
    warned = [answer["warnings"] for i, answer in zip(order, answers, strict=True) if i == 4]
    assert all(w == [{"path": "inputs[0].facets.hierarchy", "message": warned[0][0]["message"]}] for w in warned)
    assert [answer["warnings"] for i, answer in zip(order, answers, strict=True) if i != 4] == [[]] * (
        len(order) - len(warned)
    )
    ids = {row["id"] for row in _get(read_client, "datasets", limit=100)["results"]}
    assert ids == {TABLE_ID, CONTRADICTED_ID}
    # Read by the name the catalog declares, or as Trino spelled it, the answer is the location's dataset.
    for alias in (
        f"dataset:{DECLARED_TABLE[0]}:{DECLARED_TABLE[1]}",
        "dataset:trino://trino:8080:iceberg.sales.customers",
    ):
        assert _get(read_client, "datasets/detail", nodeId=alias)["id"] == TABLE_ID
    detail = _get(read_client, "datasets/detail", nodeId=TABLE_ID)
    aliases = {(a["namespace"], a["name"]): (a["source"]["kind"], a["source"]["type"]) for a in detail["aliases"]}
    assert aliases == {
        ("s3a://lake", "warehouse/sales.db/customers"): ("dataset", None),
        (METASTORE, "sales.customers"): ("catalog", "TABLE"),
        (METASTORE, "spark_catalog.sales.customers"): ("dataset", None),
        ("trino://trino:8080", "iceberg.sales.customers"): ("dataset", None),
    }
    assert detail["facets"]["hierarchy"]["hierarchy"] == CUSTOMERS
    assert detail["facets"]["catalog"]["framework"] == "iceberg"
    # Every reader is downstream of the one writer.
    lineage = _get(read_client, "lineage", nodeId=TABLE_ID, depth=2, direction="downstream")
    assert {"job:spark:customers.report", "job:trino:customers.dashboard"} <= {node["id"] for node in lineage["graph"]}
    upstream = _get(read_client, "lineage", nodeId=TABLE_ID, depth=2, direction="upstream")
    assert "job:spark:customers.load" in {node["id"] for node in upstream["graph"]}
    # The name won over the contradicting hierarchy: `sales.invoices` stays itself, its hierarchy left out.
    contradicted = _get(read_client, "datasets/detail", nodeId=CONTRADICTED_ID)
    assert contradicted["aliases"] == [] and "hierarchy" not in contradicted["facets"]
    assert contradicted["facets"]["catalog"]["name"] == "spark_catalog"


@pytest.mark.django_db
def test_every_order_duplication_and_batching_gives_one_graph(graph, ingest_client):  # type: ignore[no-untyped-def]
    dumps = []
    for order, batches in ORDERS.values():
        graph_wipe()
        LineageEvent.objects.all().delete()
        _post_and_apply(ingest_client, [copy.deepcopy(EVENTS[i]) for i in order], batches)
        dumps.append(graph_dump())
    assert all(dump == dumps[0] for dump in dumps[1:])


@pytest.mark.django_db
@override_settings(FACET_POLICY="strict")
def test_under_a_strict_facet_policy_a_contradicting_hierarchy_is_a_400_and_nothing_is_stored(ingest_client):  # type: ignore[no-untyped-def]
    response = ingest_client.post("/api/v1/lineage", copy.deepcopy(EVENTS[4]), format="json")
    assert response.status_code == 400, response.content
    assert response.json()["path"] == "inputs[0].facets.hierarchy"
    assert "the name wins" in response.json()["message"]
    assert LineageEvent.objects.count() == 0
    assert ingest_client.post("/api/v1/lineage", copy.deepcopy(EVENTS[2]), format="json").status_code == 201


@pytest.mark.django_db
def test_a_hierarchy_failing_its_schema_is_warned_of_once_and_declares_nothing(  # type: ignore[no-untyped-def]
    graph, ingest_client, read_client
):
    broken = copy.deepcopy(EVENTS[2])  # the hierarchy-only read, its level without a name
    broken["inputs"][0]["facets"]["hierarchy"] = facet(hierarchy=[{"type": "DATABASE"}, {"type": "TABLE"}])
    (answer,) = _post_and_apply(ingest_client, [broken], [[0]])
    assert answer["warnings"] == [{"path": "inputs[0].facets.hierarchy", "message": answer["warnings"][0]["message"]}]
    assert "'name' is a required property" in answer["warnings"][0]["message"]
    detail = _get(read_client, "datasets/detail", nodeId=f"dataset:{METASTORE}:spark_catalog.sales.customers")
    assert detail["aliases"] == [] and "hierarchy" not in detail["facets"]
