"""The impact page in a real browser: reached from a dataset, a field and a failure; grouped by owner; downloads."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from tests.browser.conftest import PageWatch, shot
from tests.browser.scenario import (
    CLEAN,
    EVIL_DATASET,
    EVIL_DATASET_NAME,
    EVIL_JOB_NAME,
    EXPORT,
    EXPORT_JOB,
    LOAD,
    MART,
    RAW,
    build_scenario,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EVIL_JOB = f"job:evil:{EVIL_JOB_NAME}"


@pytest.fixture
def lineage(graph: Any) -> None:  # type: ignore[no-untyped-def]
    build_scenario()


def assets(page: Any, owner: str | None = None) -> set[str]:
    scope = f"section.impact-group[data-owner='{owner}'] " if owner else ""
    return set(page.locator(f"{scope}tr[data-asset]").evaluate_all("rows => rows.map(r => r.dataset.asset)"))


def test_the_impact_page_groups_a_datasets_downstream_by_owner_and_offers_every_report(
    logged_in: Any, live_server: Any, lineage: None, watch: PageWatch
) -> None:
    page = logged_in
    page.goto(f"{live_server.url}/dataset?nodeId={RAW}")
    page.get_by_role("link", name="Impact report").click()
    page.wait_for_selector("#impact-total")
    assert parse_qs(urlparse(page.url).query)["nodeId"] == [RAW]
    assert {CLEAN, MART, EXPORT, LOAD, EXPORT_JOB, EVIL_DATASET, EVIL_JOB} <= assets(page)
    assert CLEAN in assets(page, "team:payments")
    assert MART in assets(page, "(no owner)")
    row = page.locator(f"section.impact-group[data-owner='(no owner)'] tr[data-asset='{EXPORT}']")
    # The path reads in short names and wraps at its arrows; its full ids are its title.
    path = row.locator(".impact-path")
    assert path.inner_text().startswith("raw.orders → load_orders → clean.orders → aggregate → mart.revenue")
    full = [RAW, LOAD, CLEAN, "job:spark:aggregate", MART, EXPORT_JOB, EXPORT]
    assert path.get_attribute("title") == " → ".join(node.split(":", 1)[1] for node in full)
    # Names that are markup stay text: the evil dataset and job are listed, nothing ran.
    evil = page.locator(f"tr[data-asset='{EVIL_DATASET}']")
    assert EVIL_DATASET_NAME in evil.inner_text()
    assert page.locator("#impact-result img, #impact-result script").count() == 0
    shot(page, "impact-dataset")

    for fmt, kind in (
        ("json", "application/json"),
        ("csv", "text/csv"),
        ("html", "text/html"),
        ("pdf", "application/pdf"),
    ):
        href = page.locator(f"#impact-downloads a[data-format='{fmt}']").get_attribute("href")
        response = page.request.get(f"{live_server.url}{href}")
        assert response.status == 200 and response.headers["content-type"].startswith(kind)
        assert response.headers["content-disposition"].startswith("attachment;")
    with page.expect_download() as download:
        page.locator("#impact-downloads a[data-format='csv']").click()
    assert download.value.suggested_filename == "impact-dataset_db_raw.orders.csv"
    assert watch.dialogs == [] and watch.errors == []


def test_picking_fields_narrows_the_impact_to_their_column_lineage(
    logged_in: Any, live_server: Any, lineage: None, watch: PageWatch
) -> None:
    page = logged_in
    page.goto(f"{live_server.url}/impact?nodeId={RAW}")
    page.wait_for_selector("#impact-total")
    page.locator("#impact-fields input[value='datasetField:db:raw.orders:amount']").check()
    page.locator("#impact-fields button[type=submit]").click()
    page.wait_for_url(re.compile(r"datasetField"))
    page.wait_for_selector("#impact-total")
    assert assets(page) == {
        "datasetField:db:clean.orders:amount_eur",
        CLEAN,
        LOAD,
        "datasetField:db:mart.revenue:total",
        MART,
        "job:spark:aggregate",
    }
    total = page.locator(
        "section.impact-group[data-owner='(no owner)'] tr[data-asset='datasetField:db:mart.revenue:total']"
    )
    assert "DIRECT/AGGREGATION by job:spark:aggregate" in total.inner_text()
    shot(page, "impact-field")
    assert watch.errors == []


def test_a_failure_and_the_field_view_link_to_the_impact_page(
    logged_in: Any, live_server: Any, lineage: None, watch: PageWatch
) -> None:
    page = logged_in
    page.goto(f"{live_server.url}/failures")
    card = page.locator("article.failure[data-run='00000000-0000-4000-8000-0000000000c1']")
    card.get_by_role("link", name="Impact report").click()
    page.wait_for_selector("#impact-total")
    assert parse_qs(urlparse(page.url).query)["nodeId"] == [MART]
    assert {EXPORT_JOB, EXPORT} <= assets(page)
    page.goto(f"{live_server.url}/lineage?nodeId={CLEAN}&view=column&field=amount_eur")
    # Once the drawn field is traced, its panel and the field list offer its impact once between them.
    page.wait_for_selector("#side-panel .traced-field[data-field-id='datasetField:db:clean.orders:amount_eur']")
    assert page.get_by_role("link", name="Impact of amount_eur →").count() == 1
    page.get_by_role("link", name="Impact of amount_eur →").click()
    page.wait_for_selector("#impact-total")
    assert parse_qs(urlparse(page.url).query)["nodeId"] == ["datasetField:db:clean.orders:amount_eur"]
    assert "datasetField:db:mart.revenue:total" in assets(page)
    assert watch.dialogs == [] and watch.errors == []
