"""Ownership end to end: event-sourced and hand-set assignments, the graph mirror, inheritance, rebuild."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from lineage_app.graph.driver import graph_read, records
from lineage_app.ownership import services
from lineage_app.ownership.models import Owner, OwnershipAssignment
from tests.apply import accept_and_apply
from tests.events import PRODUCER, dataset, new_run_id, run_event
from tests.ownership.scenario import seed

pytestmark = pytest.mark.django_db

CUSTOMERS = "dataset:db:customers"
ORDERS = "dataset:db:orders"


def manual_edges() -> list[tuple[str, str, str]]:
    rows = graph_read(
        lambda tx: records(
            tx,
            "MATCH (x)-[e:OWNED_BY {source: 'manual'}]->(o:Owner) "
            "RETURN coalesce(x.nodeId, 'namespace:' + x.name) AS target, o.name AS owner, e.role AS role",
        )
    )
    return sorted((r["target"], r["owner"], r["role"]) for r in rows)


def effective(client: APIClient, node_id: str) -> list[tuple[str, str, str, bool]]:
    response = client.get("/api/v1/ownership", {"nodeId": node_id})
    assert response.status_code == 200, response.content
    return [(o["name"], o["role"], o["source"], o["inherited"]) for o in response.json()["results"]]


def test_ownership_facets_of_events_are_recorded_as_event_assignments(graph):  # type: ignore[no-untyped-def]
    seed()
    seed()  # twice: recorded once
    rows = list(
        OwnershipAssignment.objects.values_list("owner__name", "target_type", "namespace", "name", "role", "source")
    )
    assert rows == [("team:crm", "dataset", "db", "customers", "MAINTAINER", "event")]
    assert Owner.objects.get(name="team:crm").kind == Owner.Kind.TEAM


def test_an_event_sourced_owner_has_the_same_kind_in_the_database_and_the_graph(graph):  # type: ignore[no-untyped-def]
    names = ["team:crm", "group:finance", "user:ana", "bob"]
    accept_and_apply(
        run_event(
            "COMPLETE",
            run_id=new_run_id(),
            job="load",
            namespace="db",
            outputs=[dataset("db", "customers", owners=names)],
        )
    )
    in_graph = {
        row["name"]: row["kind"]
        for row in graph_read(lambda tx: records(tx, "MATCH (o:Owner) RETURN o.name AS name, o.kind AS kind"))
    }
    in_database = dict(Owner.objects.values_list("name", "kind"))
    assert (
        in_graph == in_database == {"team:crm": "team", "group:finance": "team", "user:ana": "person", "bob": "person"}
    )


def test_ownership_facets_of_dataset_events_are_recorded_too(graph):  # type: ignore[no-untyped-def]
    accept_and_apply(
        {
            "eventTime": "2026-01-05T08:00:00Z",
            "producer": PRODUCER,
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
            "dataset": dataset("db", "countries", owners=["user:ana"]),
        }
    )
    rows = list(OwnershipAssignment.objects.values_list("owner__name", "target_type", "namespace", "name", "source"))
    assert rows == [("user:ana", "dataset", "db", "countries", "event")]


def test_a_hand_set_owner_is_in_the_graph_at_once_and_wins_over_the_event_owner(  # type: ignore[no-untyped-def]
    graph, read_client
):
    seed()
    assert effective(read_client, CUSTOMERS) == [("team:crm", "MAINTAINER", "event", False)]
    services.assignment_create(
        owner="data-platform",
        kind="team",
        email="dp@example.com",
        target_type="dataset",
        namespace="db",
        name="customers",
        role="owner",
    )
    assert manual_edges() == [(CUSTOMERS, "data-platform", "owner")]
    assert effective(read_client, CUSTOMERS) == [("data-platform", "owner", "manual", False)]
    # The event-sourced record stays, shown as such; the hand-set one wins.
    assert set(OwnershipAssignment.objects.values_list("source", flat=True)) == {"event", "manual"}


def test_a_dataset_without_owners_inherits_its_namespaces(graph, read_client):  # type: ignore[no-untyped-def]
    seed()
    services.assignment_create(owner="warehouse", target_type="namespace", namespace="db", role="steward")
    assert effective(read_client, ORDERS) == [("warehouse", "steward", "manual", True)]
    assert effective(read_client, "namespace:db") == [("warehouse", "steward", "manual", False)]
    assert effective(read_client, "job:db:load") == [("warehouse", "steward", "manual", True)]
    assert effective(read_client, CUSTOMERS) == [("team:crm", "MAINTAINER", "event", False)]


def test_deleting_or_renaming_updates_the_graph_at_once(graph):  # type: ignore[no-untyped-def]
    seed()
    assignment, _ = services.assignment_create(
        owner="ana", kind="person", target_type="dataset", namespace="db", name="orders", role="on-call"
    )
    owner = assignment.owner
    owner.name, owner.channel = "ana.s", "#oncall"
    services.owner_save(owner=owner, previous_name="ana")
    assert manual_edges() == [(ORDERS, "ana.s", "on-call")]
    contact = graph_read(lambda tx: records(tx, "MATCH (o:Owner {name: 'ana.s'}) RETURN o.contact AS c"))
    assert contact == [{"c": "#oncall"}]
    services.assignments_delete(assignments=[assignment])
    assert manual_edges() == []


def test_an_assignment_made_before_its_dataset_exists_reaches_the_graph_with_the_dataset(graph):  # type: ignore[no-untyped-def]
    services.assignment_create(owner="crm", target_type="dataset", namespace="db", name="customers", role="owner")
    assert manual_edges() == []  # no such node yet: nothing to hang the edge on
    seed()
    assert manual_edges() == [(CUSTOMERS, "crm", "owner")]


def test_hand_set_assignments_survive_rebuild_graph(graph, read_client):  # type: ignore[no-untyped-def]
    seed()
    services.assignment_create(owner="warehouse", target_type="namespace", namespace="db", role="owner")
    services.assignment_create(owner="billing", target_type="job", namespace="db", name="load", role="steward")
    before = manual_edges()
    call_command("rebuild_graph", "--no-progress", stdout=StringIO())
    assert manual_edges() == before == [("job:db:load", "billing", "steward"), ("namespace:db", "warehouse", "owner")]
    assert effective(read_client, ORDERS) == [("warehouse", "owner", "manual", True)]
    assert effective(read_client, CUSTOMERS) == [("team:crm", "MAINTAINER", "event", False)]


def test_the_ownership_api_lists_owners_and_assignments_as_pages(graph, read_client):  # type: ignore[no-untyped-def]
    seed()
    services.assignment_create(owner="warehouse", target_type="namespace", namespace="db", role="owner")
    owners = read_client.get("/api/v1/owners", {"limit": 1}).json()
    assert owners == {
        "count": 2,
        "results": [{"name": "team:crm", "kind": "team", "email": "", "channel": "", "assignmentCount": 1}],
    }
    listed = read_client.get("/api/v1/ownership", {"source": "manual"}).json()
    assert listed["count"] == 1 and listed["results"][0]["owner"] == "warehouse"
    missing = read_client.get("/api/v1/ownership", {"nodeId": "dataset:db:nope"})
    assert missing.status_code == 404 and missing.json()["path"] == "nodeId"


@pytest.mark.parametrize(
    ("node_id", "message"),
    [
        ("namespace:", "nodeId 'namespace:' needs a namespace name"),
        ("table:db:orders", "nodeId must start with 'dataset:', 'job:' or 'namespace:' (got 'table:db:orders')"),
        ("namespace", "nodeId must start with 'dataset:' or 'job:' (got 'namespace')"),
    ],
)
def test_an_ownership_node_id_that_names_nothing_ownable_says_why(graph, read_client, node_id, message):  # type: ignore[no-untyped-def]
    response = read_client.get("/api/v1/ownership", {"nodeId": node_id})
    assert response.status_code == 404
    assert response.json() == {"error": "not_found", "message": message, "path": "nodeId"}


def test_a_namespace_id_names_the_namespace_whatever_its_name_holds(graph, read_client):  # type: ignore[no-untyped-def]
    lake = "s3://lake:9000"
    accept_and_apply(
        run_event("COMPLETE", run_id=new_run_id(), job="load", namespace=lake, outputs=[dataset(lake, "orders")])
    )
    services.assignment_create(owner="lake", target_type="namespace", namespace=lake, role="owner")
    assert effective(read_client, f"namespace:{lake}") == [("lake", "owner", "manual", False)]
