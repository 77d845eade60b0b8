"""Big neighbourhoods: a hub's neighbours as clusters in `GET /api/v1/lineage`, its members a page at a time in
`GET /api/v1/lineage/neighbours`, and the node budget held with clusters in it."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from django.conf import settings as django_settings
from rest_framework.test import APIClient

from bench.big_neighbourhood import HUB_NAMESPACES, hub_consumer_name, hub_consumers_load
from lineage_app.graph.driver import graph_driver
from lineage_app.graph.model import natural_key
from tests.apply import accept_and_apply
from tests.events import dataset, new_run_id, run_event
from tests.explorer.application_graph import APP_RUN, WRITE_RUN, job_type, parent, run

pytestmark = pytest.mark.django_db

HUB = "dataset:db:hub"
HUB_KEY = natural_key("db", "hub")


def _hub_with(consumers: range) -> None:
    """The dataset `db.hub`, written by the job `spark:load` from `db.raw` (events through the projection), and
    read by `consumers` jobs (`hub_consumers_load`) and by consumer 1, which writes `db.after` from it (events)."""
    first, last = hub_consumer_name(1)
    accept_and_apply(
        run_event(
            "COMPLETE",
            run_id=new_run_id(),
            job="load",
            inputs=[dataset("db", "raw")],
            outputs=[dataset("db", "hub")],
        ),
        run_event(
            "COMPLETE",
            run_id=new_run_id(),
            namespace=first,
            job=last,
            inputs=[dataset("db", "hub")],
            outputs=[dataset("db", "after")],
        ),
    )
    hub_consumers_load(
        driver=graph_driver(),
        database=django_settings.NEO4J_DATABASE,
        hub_key=HUB_KEY,
        consumers=[k for k in consumers if k != 1],
    )


def _get(client: APIClient, path: str, **params: Any) -> dict[str, Any]:
    response = client.get(f"/api/v1/{path}?{urlencode(params)}")
    assert response.status_code == 200, response.content
    return response.json()


def _all_pages(client: APIClient, **params: Any) -> list[str]:
    """Every member's id, page after page."""
    ids: list[str] = []
    cursor: str | None = None
    while True:
        page = _get(client, "lineage/neighbours", **params, **({"cursor": cursor} if cursor else {}))
        ids.extend(member["id"] for member in page["members"])
        cursor = page["next"]
        if cursor is None:
            return ids


def _consumer_ids(consumers: range, namespace: str | None = None) -> list[str]:
    """The ids of `consumers` (in `namespace`, if given) in key order: namespace, then name."""
    names = sorted(hub_consumer_name(k) for k in consumers)
    return [f"job:{ns}:{name}" for ns, name in names if namespace in (None, ns)]


def test_ten_thousand_consumers_are_three_clusters_with_counts_and_the_walk_stops_at_the_hub(
    graph: Any, read_client: APIClient
) -> None:
    _hub_with(range(10_000))
    body = _get(read_client, "lineage", nodeId=HUB, depth=4, direction="both")
    # Upstream is light and listed; downstream is the hub's clusters alone: no consumer, nothing beyond them.
    assert sorted(node["id"] for node in body["graph"]) == [HUB, "dataset:db:raw", "job:spark:load"]
    assert body["truncated"] is False
    failing = {ns: sum(1 for k in range(0, 10_000, 10) if hub_consumer_name(k)[0] == ns) for ns in HUB_NAMESPACES}
    assert body["clusters"] == [
        {
            "id": f"neighbours:downstream:{ns}:{HUB}",
            "nodeId": HUB,
            "drawnOn": HUB,
            "direction": "downstream",
            "type": "JOB",
            "namespace": ns,
            "count": len(_consumer_ids(range(10_000), ns)),
            "failing": failing[ns],
        }
        for ns in HUB_NAMESPACES
    ]
    assert sum(cluster["count"] for cluster in body["clusters"]) == 10_000
    assert [cluster["failing"] for cluster in body["clusters"]] == [334, 333, 333]
    # Consumer 1 is the only one the events made; its output is not reached through the hub.
    every = _all_pages(read_client, nodeId=HUB, direction="downstream", limit=500)
    assert every == _consumer_ids(range(10_000))


def test_paging_lists_each_member_of_a_cluster_once_in_key_order(graph: Any, read_client: APIClient) -> None:
    _hub_with(range(10_000))
    namespace = HUB_NAMESPACES[2]
    ids = _all_pages(read_client, nodeId=HUB, direction="downstream", namespace=namespace, limit=499)
    assert ids == _consumer_ids(range(10_000), namespace)
    page = _get(read_client, "lineage/neighbours", nodeId=HUB, direction="downstream", namespace=namespace, limit=2)
    assert [member["data"]["namespace"] for member in page["members"]] == [namespace, namespace]
    assert page["members"][0]["type"] == "JOB"
    assert page["members"][0]["data"]["latestRunState"] in ("COMPLETED", "FAILED")


def test_a_page_is_stable_while_members_are_added(graph: Any, read_client: APIClient, settings: Any) -> None:
    settings.LINEAGE_CLUSTER_THRESHOLD = 5
    _hub_with(range(0, 300, 2))  # even numbers; the odd ones come while paging
    params = {"nodeId": HUB, "direction": "downstream", "namespace": HUB_NAMESPACES[0], "limit": 10}
    seen: list[str] = []
    page = _get(read_client, "lineage/neighbours", **params)
    seen.extend(member["id"] for member in page["members"])
    cursor = page["next"]
    added = False
    while cursor is not None:
        if not added and len(seen) >= 20:
            # Members that sort before the cursor and after it arrive between two pages.
            hub_consumers_load(
                driver=graph_driver(),
                database=django_settings.NEO4J_DATABASE,
                hub_key=HUB_KEY,
                consumers=range(3, 300, 2),
            )
            added = True
        page = _get(read_client, "lineage/neighbours", **params, cursor=cursor)
        seen.extend(member["id"] for member in page["members"])
        cursor = page["next"]
    assert added
    assert len(seen) == len(set(seen))  # nobody twice
    before = set(_consumer_ids(range(0, 300, 2), HUB_NAMESPACES[0]))
    assert before <= set(seen)  # everybody there from the start, once
    assert seen == sorted(seen, key=lambda node_id: node_id.split(":", 2)[2])  # in key order
    later = set(seen) - before  # the added ones sorting after the cursor when they came, none before it
    cut = seen[19]
    assert later == {node_id for node_id in _consumer_ids(range(3, 300, 2), HUB_NAMESPACES[0]) if node_id > cut}


def test_the_first_answer_never_exceeds_the_node_budget(graph: Any, read_client: APIClient, settings: Any) -> None:
    settings.LINEAGE_CLUSTER_THRESHOLD = 5
    _hub_with(range(40))
    for budget in range(1, 6):
        settings.LINEAGE_MAX_NODES = budget
        body = _get(read_client, "lineage", nodeId=HUB, depth=6, direction="both")
        assert len(body["graph"]) + len(body["clusters"]) <= budget, budget
        assert body["truncated"] is True, budget
    settings.LINEAGE_MAX_NODES = 6  # the hub, raw, load and three clusters: all of it
    body = _get(read_client, "lineage", nodeId=HUB, depth=6, direction="both")
    assert (len(body["graph"]), len(body["clusters"]), body["truncated"]) == (3, 3, False)


def test_below_the_threshold_nothing_changes(graph: Any, read_client: APIClient, settings: Any) -> None:
    _hub_with(range(2, 50))  # with consumer 1: 49 neighbours, at most the threshold of 50
    summarised = _get(read_client, "lineage", nodeId=HUB, depth=4, direction="both")
    settings.LINEAGE_CLUSTER_THRESHOLD = 0  # no summaries
    plain = _get(read_client, "lineage", nodeId=HUB, depth=4, direction="both")
    assert summarised["clusters"] == plain["clusters"] == []
    assert summarised["graph"] == plain["graph"]
    assert "dataset:db:after" in {node["id"] for node in plain["graph"]}
    settings.LINEAGE_CLUSTER_THRESHOLD = 49  # exactly the hub's neighbours: still listed
    assert _get(read_client, "lineage", nodeId=HUB, depth=4, direction="both")["graph"] == plain["graph"]
    settings.LINEAGE_CLUSTER_THRESHOLD = 48  # one fewer: a hub
    body = _get(read_client, "lineage", nodeId=HUB, depth=4, direction="both")
    assert sum(cluster["count"] for cluster in body["clusters"]) == 49


def test_a_search_lists_the_members_whose_name_contains_it(graph: Any, read_client: APIClient, settings: Any) -> None:
    settings.LINEAGE_CLUSTER_THRESHOLD = 5
    _hub_with(range(120))
    page = _get(read_client, "lineage/neighbours", nodeId=HUB, direction="downstream", q="CONSUMER00001")
    assert [member["id"] for member in page["members"]] == [
        node_id for node_id in _consumer_ids(range(120)) if "consumer00001" in node_id
    ]
    assert page["next"] is None
    upstream = _get(read_client, "lineage/neighbours", nodeId=HUB, direction="upstream")
    assert [member["id"] for member in upstream["members"]] == ["job:spark:load"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"direction": "downstream", "cursor": "%%%"}, "cursor"),
        ({"direction": "downstream", "cursor": "_w"}, "cursor"),
        ({"direction": "downstream", "cursor": "not base64!"}, "cursor"),
        ({"direction": "sideways"}, "direction"),
        ({}, "direction"),
        ({"direction": "downstream", "limit": 0}, "limit"),
        ({"direction": "downstream", "limit": 501}, "limit"),
    ],
)
def test_bad_paging_parameters_are_a_400_naming_them(
    graph: Any, read_client: APIClient, params: dict[str, Any], field: str
) -> None:
    _hub_with(range(3))
    response = read_client.get(f"/api/v1/lineage/neighbours?{urlencode({'nodeId': HUB, **params})}")
    assert response.status_code == 400, response.content
    assert field in response.content.decode()


def test_any_cursor_of_the_documented_pattern_is_a_place_to_page_from(graph: Any, read_client: APIClient) -> None:
    """A cursor that decodes to no member's key (or to no text: bytes that are not UTF-8) still pages: from
    after where that key would sort, never a 400 for a cursor the schema allows."""
    _hub_with(range(3))
    for cursor in ("_w==", "AAAA", "____"):
        params = {"nodeId": HUB, "direction": "downstream", "cursor": cursor}
        response = read_client.get(f"/api/v1/lineage/neighbours?{urlencode(params)}")
        assert response.status_code == 200, (cursor, response.content)


def test_an_unknown_node_is_a_404(graph: Any, read_client: APIClient) -> None:
    response = read_client.get(
        f"/api/v1/lineage/neighbours?{urlencode({'nodeId': 'dataset:db:nowhere', 'direction': 'upstream'})}"
    )
    assert response.status_code == 404
    assert "nodeId" in response.content.decode()


def test_an_action_job_hub_hangs_its_clusters_on_its_application_and_pages_by_the_action(
    graph: Any, read_client: APIClient, settings: Any
) -> None:
    settings.LINEAGE_CLUSTER_THRESHOLD = 2
    app = parent(APP_RUN, "spark", "fan")
    accept_and_apply(
        *run(APP_RUN, "fan", typed=job_type("SPARK", "APPLICATION")),
        *run(
            WRITE_RUN,
            "fan.write",
            minutes=1,
            parent_of=app,
            typed=job_type("SPARK", "SQL_JOB"),
            inputs=[dataset("db", "source")],
            outputs=[dataset("db", f"out{n}") for n in range(4)],
        ),
    )
    body = _get(read_client, "lineage", nodeId="dataset:db:source", depth=4, direction="downstream")
    assert sorted(node["id"] for node in body["graph"]) == ["dataset:db:source", "job:spark:fan"]
    (cluster,) = body["clusters"]
    assert (cluster["nodeId"], cluster["drawnOn"], cluster["count"]) == ("job:spark:fan.write", "job:spark:fan", 4)
    page = _get(read_client, "lineage/neighbours", nodeId=cluster["nodeId"], direction="downstream")
    assert [member["id"] for member in page["members"]] == [f"dataset:db:out{n}" for n in range(4)]
    action = _get(read_client, "lineage", nodeId="dataset:db:source", depth=4, direction="downstream", level="action")
    assert action["clusters"][0]["drawnOn"] == "job:spark:fan.write"
