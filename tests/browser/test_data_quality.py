"""Data quality in the browser, on the real example pipeline's graph: `validate_orders` reports its checks and
metrics of bronze/orders before it fails (`Agent.report_quality`), so the dataset page shows them, the explorer
badges the dataset, and the failure page tells the failing check."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from tests.browser.conftest import shot
from tests.browser.example_pipeline import ExamplePipeline
from tests.browser.test_explorer import open_lineage

pytestmark = [pytest.mark.browser, pytest.mark.spark, pytest.mark.django_db(transaction=True)]

CHECK_ACTION = "job:spark:validate_orders.write_parquet.orders_checked"


def test_the_dataset_page_shows_the_quality_history_the_pipeline_reported(
    logged_in: Any, live_server: Any, example: ExamplePipeline
) -> None:
    page = logged_in
    page.goto(f"{live_server.url}/dataset?nodeId={quote(example.dataset_id('bronze/orders'), safe='')}")
    section = page.locator("#quality")
    section.locator("#quality-checks").wait_for()
    assert section.locator("h2 [data-quality]").inner_text() == "quality failing"
    failed = section.locator("tr[data-check='amount_non_negative'] td[data-outcome]")
    assert failed.get_attribute("data-outcome") == "failed"
    assert failed.inner_text() == "✗ 1"  # the one refund with a negative amount
    outcomes = section.locator("#quality-checks td[data-outcome]").evaluate_all(
        "cells => cells.map(c => c.dataset.outcome)"
    )
    assert sorted(outcomes) == ["failed", "passed", "passed"]
    metrics = section.locator("#quality-metrics tbody tr")
    assert metrics.evaluate_all("rows => rows.map(r => r.dataset.metric)")[0] == "Row count"
    assert section.locator("tr[data-metric='amount · nulls'] svg.sparkline").count() == 1
    section.scroll_into_view_if_needed()
    shot(page, "example-dataset-quality")


def test_the_explorer_badges_the_dataset_whose_checks_fail(
    logged_in: Any, live_server: Any, example: ExamplePipeline
) -> None:
    page = logged_in
    bronze = example.dataset_id("bronze/orders")
    open_lineage(page, live_server, bronze, depth=2)
    drawn = page.evaluate(
        "(id) => { const g = window.__tributaryGraph; return [g.nodeLabel(id).text, g.nodeIds()]; }", bronze
    )
    label, ids = drawn
    assert label.startswith("✗ ")
    others = [node for node in ids if node.startswith("dataset:") and node != bronze]
    assert others and all(
        not page.evaluate("(id) => window.__tributaryGraph.nodeLabel(id).text", node).startswith("✗") for node in others
    )
    shot(page, "example-lineage-quality")


def test_the_failure_page_tells_the_failing_check_and_walks_from_the_tested_dataset(
    logged_in: Any, live_server: Any, example: ExamplePipeline
) -> None:
    page = logged_in
    page.goto(f"{live_server.url}/failures?classification=data_quality")
    # The write action failed its checks; its application run (its own error a data validation) is listed
    # with it, and grouped under its job.
    page.locator("#failure-groups tr[data-job='job:spark:validate_orders']").wait_for()
    card = page.locator("article.failure[data-classification='data_quality']")
    assert card.count() == 1
    assert "validate_orders.write_parquet.orders_checked" in card.locator(".failure-job").inner_text()
    headline = card.locator(".failure-cause").inner_text()
    assert "amount_non_negative on amount: actual 1, expected 0" in headline
    tested = card.locator(".failure-tested a")
    assert tested.inner_text().endswith("bronze/orders")
    walk = card.locator(".failure-links a", has_text="Root cause walk").get_attribute("href") or ""
    assert quote(example.dataset_id("bronze/orders"), safe="") in walk and "direction=upstream" in walk
    shot(page, "example-failure-data-quality")
