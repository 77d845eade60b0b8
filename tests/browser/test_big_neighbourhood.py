"""A dataset with 10,000 consumers in a real browser: its consumers are drawn as clusters with counts, and a click
brings a cluster's members in a page at a time (real graph, real `GET /api/v1/lineage` and `/lineage/neighbours`)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import shot
from tests.browser.test_explorer import click_node, node_ids, open_lineage
from tests.explorer.test_big_neighbourhoods import HUB, _hub_with

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLUSTER = f"neighbours:downstream:hub-airflow:{HUB}"


def _label(page: Any, node_id: str) -> str:
    return str(page.evaluate("id => window.__tributaryGraph.nodeLabel(id)", node_id)["text"])


def _members(page: Any) -> set[str]:
    return {node_id for node_id in node_ids(page) if node_id.startswith("job:hub-airflow:")}


def test_a_hub_opens_as_clusters_that_bring_their_members_in_pages(
    logged_in: Any, live_server: Any, graph: Any
) -> None:
    _hub_with(range(10_000))
    page = logged_in
    open_lineage(page, live_server, HUB, depth=2)
    drawn = node_ids(page)
    clusters = sorted(node_id for node_id in drawn if node_id.startswith("neighbours:"))
    assert clusters == [CLUSTER, f"neighbours:downstream:hub-flink:{HUB}", f"neighbours:downstream:hub-spark:{HUB}"]
    assert len(drawn) == 6  # the hub, its producer and that one's input, and three clusters: no consumer
    assert _label(page, CLUSTER) == "3,334 jobs · hub-airflow · 334 failing"
    shot(page, "big-neighbourhood-clusters")

    click_node(page, CLUSTER)
    page.wait_for_function("id => window.__tributaryGraph.nodeIds().includes(id)", arg="job:hub-airflow:consumer000000")
    assert len(_members(page)) == 100
    assert _label(page, CLUSTER) == "3,234 more jobs · hub-airflow"
    assert "3,234 more: click the cluster again" in page.inner_text(".graph-status")
    page.wait_for_timeout(1000)  # the view eases to the cluster
    shot(page, "big-neighbourhood-first-page")

    click_node(page, CLUSTER)  # "more": the next page joins the first
    page.wait_for_function("id => window.__tributaryGraph.nodeIds().includes(id)", arg="job:hub-airflow:consumer000300")
    assert len(_members(page)) == 200
    assert _label(page, CLUSTER) == "3,134 more jobs · hub-airflow"
