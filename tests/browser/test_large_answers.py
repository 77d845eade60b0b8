"""A very large lineage answer in a real browser: it opens grouped into clusters, never a hairball.

The answer is the render benchmark's 1,000-node synthetic graph with names shaped like the example
pipeline's, served in place of `GET /api/v1/lineage` (a real graph that size takes minutes to
ingest on this machine; the read API's own budget and speed are tested in tests/explorer and
bench/read_api.py)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest

from bench.render_lineage import synthetic_lineage
from tests.browser.conftest import shot
from tests.browser.test_explorer import graph_ready, node_ids

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def large(logged_in: Any) -> dict[str, Any]:
    lineage = synthetic_lineage(1000, "real")
    body = json.dumps(lineage)
    logged_in.route(
        "**/api/v1/lineage?*", lambda route: route.fulfill(status=200, content_type="application/json", body=body)
    )
    return lineage


def test_a_thousand_node_answer_opens_as_clusters_that_open_on_click(
    logged_in: Any, live_server: Any, large: dict[str, Any]
) -> None:
    page = logged_in
    root = large["nodeId"]
    page.goto(f"{live_server.url}/lineage?nodeId={quote(root, safe='')}&depth=20")
    graph_ready(page)
    drawn = node_ids(page)
    clusters = sorted(i for i in drawn if i.startswith("cluster:"))
    assert root in drawn and len(drawn) < 20 and len(clusters) >= 5
    assert "1000 nodes" in page.inner_text("#graph-count")
    label = page.evaluate("id => window.__tributaryGraph.nodeLabel(id)", clusters[0])
    assert "(" in label["text"] and label["screenFontPx"] >= 9
    shot(page, "large-answer-clusters")

    bronze = next(c for c in clusters if c.endswith("/lake/bronze"))
    point = page.evaluate("id => window.__tributaryGraph.nodePoint(id)", bronze)
    page.mouse.click(point["x"], point["y"])
    page.wait_for_function("id => !window.__tributaryGraph.nodeIds().includes(id)", arg=bronze)
    members = [n["id"] for n in large["graph"] if "/lake/bronze/" in n["id"]]
    assert set(members) <= node_ids(page)

    page.click("#show-all")
    page.wait_for_function("() => window.__tributaryGraph.nodeIds().length === 1000")
    assert "all=1" in page.url
