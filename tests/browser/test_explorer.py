"""The web UI in a real browser: login, search, the lineage explorer, column lineage, runs, failures, XSS."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from tests.alerts.scenario import bronze, history, run
from tests.apply import accept_and_apply
from tests.browser.conftest import PageWatch, shot
from tests.browser.scenario import (
    AGGREGATE,
    AGGREGATE_ERROR,
    CLEAN,
    EVIL_DATASET,
    EVIL_DATASET_NAME,
    EVIL_ERROR,
    EVIL_FIELD,
    EVIL_JOB_NAME,
    EXPORT,
    EXPORT_JOB,
    LOAD,
    MART,
    RAW,
    build_scenario,
)
from tests.events import T0
from tests.explorer.test_field_renames import BRONZE_ID, RENAMED

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def lineage(graph: Any) -> None:  # type: ignore[no-untyped-def]
    build_scenario()


def graph_ready(page: Any, view: str = "table") -> None:
    page.wait_for_selector(f"body[data-graph-ready='{view}']")


def node_ids(page: Any) -> set[str]:
    return set(page.evaluate("window.__tributaryGraph.nodeIds()"))


def wait_for_nodes(page: Any, expected: set[str]) -> None:
    page.wait_for_function(
        "ids => ids.every(id => window.__tributaryGraph && window.__tributaryGraph.nodeIds().includes(id))",
        arg=sorted(expected),
    )


def click_node(page: Any, node_id: str, *, shift: bool = False) -> None:
    """A real mouse click where the canvas draws the node."""
    point = page.evaluate("id => window.__tributaryGraph.nodePoint(id)", node_id)
    assert point is not None, f"{node_id} is not drawn"
    if shift:
        page.keyboard.down("Shift")
    page.mouse.click(point["x"], point["y"])
    if shift:
        page.keyboard.up("Shift")


def open_lineage(page: Any, live_server: Any, node_id: str, **params: Any) -> None:
    query = "&".join([f"nodeId={_q(node_id)}", *(f"{k}={_q(str(v))}" for k, v in params.items())])
    page.goto(f"{live_server.url}/lineage?{query}")
    graph_ready(page, params.get("view", "table"))


def _q(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")


def test_a_user_logs_in_searches_and_opens_the_lineage_of_a_dataset(
    logged_in: Any, lineage: None, watch: PageWatch
) -> None:
    page = logged_in
    page.fill("#search", "clean")
    result = page.locator("#search-results li[data-id='dataset:db:clean.orders']")
    result.wait_for()
    assert "clean.orders" in result.inner_text()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/lineage\?nodeId=dataset%3Adb%3Aclean\.orders"))
    graph_ready(page)
    assert node_ids(page) == {RAW, LOAD, CLEAN, AGGREGATE, MART}  # depth 2, both directions
    assert page.evaluate("window.__tributaryRendered") > 0
    shot(page, "lineage-explorer")
    assert not watch.errors


def test_changing_the_depth_fetches_more_or_less_lineage(logged_in: Any, live_server: Any, lineage: None) -> None:
    page = logged_in
    open_lineage(page, live_server, CLEAN, depth=1)
    assert node_ids(page) == {LOAD, CLEAN, AGGREGATE}
    page.select_option("#depth", "3")
    wait_for_nodes(page, {EXPORT_JOB})
    graph_ready(page)
    assert node_ids(page) == {RAW, LOAD, CLEAN, AGGREGATE, MART, EXPORT_JOB}
    assert parse_qs(urlparse(page.url).query)["depth"] == ["3"]
    page.select_option("#direction", "downstream")
    page.wait_for_function("id => !window.__tributaryGraph.nodeIds().includes(id)", arg=RAW)
    graph_ready(page)
    assert node_ids(page) == {CLEAN, AGGREGATE, MART, EXPORT_JOB}
    page.click("#fit")


def test_clicking_a_node_opens_its_panel_and_expands_its_neighbours(
    logged_in: Any, live_server: Any, lineage: None
) -> None:
    page = logged_in
    open_lineage(page, live_server, CLEAN, depth=1)
    assert MART not in node_ids(page)
    click_node(page, AGGREGATE)
    panel = page.locator("#side-panel .side-panel-content[data-node='job:spark:aggregate']")
    panel.locator("h2.node-name").wait_for()
    assert panel.locator("h2.node-name").inner_text() == "aggregate"
    panel.locator(".latest-run [data-state='FAILED']").wait_for()
    assert AGGREGATE_ERROR in panel.inner_text()
    wait_for_nodes(page, {MART})  # expanded: depth 1 around the job, merged in

    click_node(page, CLEAN)
    panel = page.locator("#side-panel .side-panel-content[data-node='dataset:db:clean.orders']")
    panel.locator("table.fields").wait_for()
    text = panel.inner_text()
    for expected in ("clean.orders", "amount_eur", "double", "country", "team:payments", "load_orders"):
        assert expected in text
    panel.locator(".latest-verification [data-verification]").wait_for()
    assert panel.locator(".latest-run [data-state='COMPLETED']").count() == 1
    shot(page, "side-panel")


def test_shift_clicking_two_nodes_highlights_the_path_between_them(
    logged_in: Any, live_server: Any, lineage: None
) -> None:
    page = logged_in
    open_lineage(page, live_server, CLEAN, depth=2)
    click_node(page, RAW, shift=True)
    click_node(page, MART, shift=True)
    path = page.locator("#path-result")
    path.wait_for()
    assert (
        path.inner_text()
        == "Path (4 hops): db:raw.orders → spark:load_orders → db:clean.orders → spark:aggregate → db:mart.revenue"
    )
    shot(page, "path-highlight")


def test_column_lineage_shows_fields_across_datasets_and_switches_back_without_losing_place(
    logged_in: Any,
    live_server: Any,
    lineage: None,
) -> None:
    page = logged_in
    open_lineage(page, live_server, CLEAN, depth=2)
    page.click("button[aria-label='Zoom in']")
    zoom_before = page.evaluate("window.__tributaryGraph.zoom()")
    click_node(page, CLEAN)
    page.locator("#side-panel button[data-field='amount_eur']").click()
    graph_ready(page, "column")
    upstream = page.locator("#upstream-fields").inner_text()
    downstream = page.locator("#downstream-fields").inner_text()
    assert "raw.orders.amount" in upstream and "DIRECT/TRANSFORMATION" in upstream
    assert "mart.revenue.total" in downstream and "DIRECT/AGGREGATION" in downstream
    assert "datasetField:db:clean.orders:amount_eur" in node_ids(page)
    assert parse_qs(urlparse(page.url).query)["field"] == ["amount_eur"]
    shot(page, "column-lineage")

    page.click("#view-table")
    graph_ready(page)
    query = parse_qs(urlparse(page.url).query)
    assert query["nodeId"] == [CLEAN] and query["focus"] == [CLEAN] and query["field"] == ["amount_eur"]
    assert node_ids(page) == {RAW, LOAD, CLEAN, AGGREGATE, MART}
    assert page.evaluate("window.__tributaryGraph.zoom()") == pytest.approx(zoom_before)
    page.locator("#side-panel [data-node='dataset:db:clean.orders'] h2").wait_for()

    page.click("#view-column")  # and back again: the same field
    graph_ready(page, "column")
    assert "mart.revenue.total" in page.locator("#downstream-fields").inner_text()


def test_the_failure_page_links_a_failure_to_its_downstream_impact(
    logged_in: Any, live_server: Any, lineage: None
) -> None:
    page = logged_in
    page.click("nav a[href='/failures']")
    card = page.locator("article.failure[data-run='00000000-0000-4000-8000-0000000000c1']")
    card.wait_for()
    # The root cause headlines the failure; the message and stack are one click away.
    assert card.locator(".failure-cause").inner_text().startswith("ZeroDivisionError")
    assert not card.locator(".stack-trace").is_visible()
    card.locator("details.stack summary").click()
    assert AGGREGATE_ERROR in card.locator(".failure-message").inner_text()
    assert "ZeroDivisionError: division by zero" in card.locator(".stack-trace").inner_text()
    shot(page, "failures")

    card.get_by_role("link", name="Downstream impact").click()
    graph_ready(page)
    query = parse_qs(urlparse(page.url).query)
    assert query["nodeId"] == [MART] and query["direction"] == ["downstream"]
    assert node_ids(page) == {MART, EXPORT_JOB, EXPORT}
    shot(page, "downstream-impact")

    page.go_back()
    card.get_by_role("link", name="Lineage").click()
    graph_ready(page)
    assert {CLEAN, AGGREGATE, MART} <= node_ids(page)


def test_a_jobs_run_history_shows_a_timeline_durations_and_states(
    logged_in: Any, live_server: Any, lineage: None
) -> None:
    page = logged_in
    page.goto(f"{live_server.url}/job?nodeId={_q(LOAD)}")
    rows = page.locator("#runs tbody tr[data-run]")
    rows.first.wait_for()
    assert rows.count() == 2
    assert "7 min 0 s" in rows.nth(0).inner_text() and "4 min 0 s" in rows.nth(1).inner_text()
    assert page.locator("#timeline rect[data-run]").count() == 2
    rows.nth(0).get_by_role("button", name="details").click()
    page.locator("tr.run-detail:not([hidden])").get_by_text("clean.orders").first.wait_for()


def test_the_dataset_page_diffs_schema_versions_and_lists_the_affected_datasets(
    logged_in: Any,
    live_server: Any,
    lineage: None,
) -> None:
    page = logged_in
    page.goto(f"{live_server.url}/dataset?nodeId={_q(CLEAN)}")
    page.locator("#diff table.diff-table").wait_for()
    diff = page.locator("#diff").inner_text()
    assert re.search(r"added\s+country", diff)
    assert re.search(r"changed\s+amount_eur\s+float → double", diff)
    assert "mart.revenue" in page.locator("#affected").inner_text()
    assert page.locator("#versions tbody tr").count() == 2
    shot(page, "schema-drift")


def test_the_dataset_page_shows_a_renamed_column_as_one_rename(logged_in: Any, live_server: Any, graph: Any) -> None:
    accept_and_apply(*history(), *run("ingest_orders", at=T0, output=bronze(RENAMED)))
    page = logged_in
    page.goto(f"{live_server.url}/dataset?nodeId={_q(BRONZE_ID)}")
    page.locator("#diff table.diff-table").wait_for()
    rows = page.locator("#diff table.diff-table tbody tr").all_inner_texts()
    assert [re.sub(r"\s+", " ", row).strip() for row in rows] == ["↦ renamed amount → amount_usd double"]
    shot(page, "schema-rename")


def test_names_and_error_messages_with_html_show_as_text_and_never_run(
    logged_in: Any,
    live_server: Any,
    lineage: None,
    watch: PageWatch,
) -> None:
    page = logged_in
    page.fill("#search", "<img")
    result = page.locator("#search-results li[role=option]").first
    result.wait_for()
    assert EVIL_DATASET_NAME in result.inner_text()
    page.keyboard.press("Enter")
    graph_ready(page)
    assert EVIL_DATASET in node_ids(page)
    click_node(page, EVIL_DATASET)
    panel = page.locator("#side-panel [data-node] h2.node-name")
    panel.wait_for()
    assert panel.inner_text() == EVIL_DATASET_NAME
    page.locator("#side-panel table.fields").get_by_text(EVIL_FIELD, exact=True).wait_for()
    click_node(page, "job:evil:" + EVIL_JOB_NAME)
    page.locator("#side-panel h2.node-name", has_text=EVIL_JOB_NAME).wait_for()

    page.goto(f"{live_server.url}/failures")
    card = page.locator("article.failure[data-run='00000000-0000-4000-8000-0000000000d1']")
    card.wait_for()
    card.locator("details.stack summary").click()
    card.locator(".failure-message").get_by_text(EVIL_ERROR, exact=True).wait_for()
    assert card.locator(".failure-job").inner_text() == f"evil:{EVIL_JOB_NAME}"
    shot(page, "xss-as-text")

    assert page.locator("img[src='x']").count() == 0
    assert page.locator("#outlet script").count() == 0
    page.wait_for_timeout(300)
    assert watch.dialogs == []
