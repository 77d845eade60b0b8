"""The search box in a real browser: each result says what it is and why it matched; tags are text, never HTML."""

from __future__ import annotations

from typing import Any

import pytest

from lineage_app.ingest.models import LineageEvent
from tests.apply import accept_and_apply
from tests.browser.conftest import PageWatch, shot
from tests.events import dataset, dbt_run, run_event, tags

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ORDERS = "dataset:postgres://db:5432:analytics.orders"  # what `dbt_run` writes
EVIL_TAG = "<img src=x onerror=alert(1)>"


@pytest.fixture
def tagged(graph: Any) -> None:
    evil = dataset("postgres://db:5432", "analytics.refunds")
    evil["facets"]["tags"] = tags(("pii", EVIL_TAG))
    accept_and_apply(
        *dbt_run("3f0e5c52-9b1d-4c8e-a7f1-2f5d0c9b8e11", model="analytics.orders"),
        run_event("COMPLETE", run_id="7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", namespace="dbt", outputs=[evil]),
    )
    assert LineageEvent.objects.filter(status=LineageEvent.Status.APPLIED).count() == 3


def test_search_results_say_what_each_hit_is_and_why_it_matched(logged_in: Any, tagged: None, watch: PageWatch) -> None:
    page = logged_in
    page.fill("#search", "pii")
    orders = page.locator(f"#search-results li[data-id='{ORDERS}']")
    orders.wait_for()
    assert orders.locator(".tag").inner_text().lower() == "dataset"
    assert orders.locator(".search-why").inner_text() == "tag pii:true"
    evil = page.locator("#search-results li[data-id='dataset:postgres://db:5432:analytics.refunds']")
    assert evil.locator(".search-why").inner_text() == f"tag pii:{EVIL_TAG}"
    assert evil.locator("img").count() == 0
    shot(page, "search-by-tag")

    page.fill("#search", "order_id")
    field = page.locator("#search-results li[data-id='datasetField:postgres://db:5432:analytics.orders:order_id']")
    field.wait_for()
    assert field.locator(".search-name").inner_text() == "analytics.orders.order_id"
    assert field.locator(".search-description").inner_text() == "The order's key, from the shop"

    page.fill("#search", "owner:analytics")
    owned = page.locator(f"#search-results li[data-id='{ORDERS}']")
    owned.wait_for()
    assert owned.locator(".search-why").inner_text() == "owner team:analytics"
    shot(page, "search-by-owner")
    assert not watch.dialogs and not watch.errors


def test_search_says_at_least_one_more_match_than_it_shows_when_there_are_more(
    logged_in: Any, graph: Any, watch: PageWatch
) -> None:
    outputs = [dataset("db", f"daily_orders_{i:02}") for i in range(25)]
    accept_and_apply(run_event("COMPLETE", run_id="1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d", job="load", outputs=outputs))
    page = logged_in
    page.fill("#search", "daily_orders")
    more = page.locator("#search-results li.search-more")
    more.wait_for()
    assert more.inner_text() == "The best 20 of at least 21 matches: type more to narrow"
    assert page.locator("#search-results li[role='option']").count() == 20
    shot(page, "search-more")

    page.fill("#search", "daily_orders_2")  # 20 to 24: all shown, nothing more said
    page.locator("#search-results li[data-id='dataset:db:daily_orders_24']").wait_for()
    assert page.locator("#search-results li[role='option']").count() == 5
    assert page.locator("#search-results li.search-more").count() == 0
    assert not watch.dialogs and not watch.errors
