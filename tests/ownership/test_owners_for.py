"""The effective-owner rule in the graph: hand-set wins over event-set, and assets fall back to their namespace."""

from __future__ import annotations

import pytest

from lineage_app.graph.driver import graph_read, graph_write
from lineage_app.graph.model import Label, natural_key
from lineage_app.graph.ownership import manual_owners_delete, manual_owners_merge, owners_for
from tests.apply import accept_and_apply
from tests.events import dataset, new_run_id, run_event

pytestmark = pytest.mark.django_db

CUSTOMERS = (Label.DATASET, natural_key("db", "customers"))
ORDERS = (Label.DATASET, natural_key("db", "orders"))
JOB = (Label.JOB, natural_key("spark", "etl.daily"))
DB = (Label.NAMESPACE, "db")


def manual(label: Label, key: str, owner: str, role: str = "owner", contact: str = "") -> dict:
    return {"label": label, "targetKey": key, "owner": owner, "kind": "team", "contact": contact, "role": role}


def owners(*refs: tuple[Label, str]) -> dict:
    return graph_read(lambda tx: owners_for(tx, refs=list(refs)))


def names(found: list[dict]) -> list[tuple[str, str, str, bool]]:
    return [(o["name"], o["role"], o["source"], o["inherited"]) for o in found]


@pytest.fixture
def seeded(graph):  # type: ignore[no-untyped-def]
    accept_and_apply(
        run_event(
            "COMPLETE",
            run_id=new_run_id(),
            inputs=[dataset("db", "orders")],
            outputs=[dataset("db", "customers", owners=["team:crm"])],
        )
    )


def test_an_asset_with_only_event_owners_shows_them(seeded):  # type: ignore[no-untyped-def]
    assert names(owners(CUSTOMERS)[CUSTOMERS]) == [("team:crm", "MAINTAINER", "event", False)]


def test_a_hand_set_owner_wins_over_the_event_owners(seeded):  # type: ignore[no-untyped-def]
    graph_write(lambda tx: manual_owners_merge(tx, rows=[manual(*CUSTOMERS, "data-platform", contact="#dp")]))
    found = owners(CUSTOMERS)[CUSTOMERS]
    assert names(found) == [("data-platform", "owner", "manual", False)]
    assert found[0]["contact"] == "#dp" and found[0]["kind"] == "team"
    graph_write(lambda tx: manual_owners_delete(tx, rows=[manual(*CUSTOMERS, "data-platform")]))
    assert names(owners(CUSTOMERS)[CUSTOMERS]) == [("team:crm", "MAINTAINER", "event", False)]


def test_an_unowned_asset_inherits_its_namespaces_owners_in_one_batch(seeded):  # type: ignore[no-untyped-def]
    graph_write(lambda tx: manual_owners_merge(tx, rows=[manual(*DB, "warehouse", role="steward")]))
    found = owners(CUSTOMERS, ORDERS, DB, JOB, (Label.DATASET, natural_key("db", "missing")))
    assert names(found[ORDERS]) == [("warehouse", "steward", "manual", True)]
    assert names(found[CUSTOMERS]) == [("team:crm", "MAINTAINER", "event", False)]
    assert names(found[DB]) == [("warehouse", "steward", "manual", False)]
    assert found[JOB] == []  # its namespace "spark" has no owners
    assert names(found[(Label.DATASET, natural_key("db", "missing"))]) == [("warehouse", "steward", "manual", True)]


def test_no_refs_means_no_query(graph):  # type: ignore[no-untyped-def]
    assert owners() == {}
