"""Lineage in time in a real browser, on a real backend: the explorer's time row (now, at an instant, comparing two),
stale edges on request, the runs page's lineage changes and a dataset's former consumers.

A small scenario, sent through the real ingest path: job `etl` reads `sales.orders` and `sales.refunds` and writes
`mart.daily` on day 0; on day 1 it reads `sales.orders` and `sales.returns` instead, so its edge from
`sales.refunds` turns stale when that run completes. Then the real example pipeline, whose `clean_orders` runs twice
and swaps its hold list for the EUR rates the second time.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from tests.apply import accept_and_apply
from tests.browser.conftest import PageWatch, shot
from tests.browser.example_pipeline import CLEAN_ORDERS_ADDED_INPUT, CLEAN_ORDERS_DROPPED_INPUT, ExamplePipeline
from tests.browser.scenario import lifecycle
from tests.browser.test_explorer import graph_ready, node_ids, open_lineage
from tests.events import dataset

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ORDERS, REFUNDS, RETURNS = "dataset:db:sales.orders", "dataset:db:sales.refunds", "dataset:db:sales.returns"
DAILY, ETL = "dataset:db:mart.daily", "job:spark:etl"
RUN_DAY_0 = "00000000-0000-4000-8000-0000000000e0"
RUN_DAY_1 = "00000000-0000-4000-8000-0000000000e1"
# Between the two runs (day 0 08:00-08:05 and day 1 08:00-08:05, tests.events.T0 = 2026-01-05 08:00 UTC) and after both.
# The UI writes what went with a minus sign, not a hyphen.
MINUS = "\N{MINUS SIGN}"
BETWEEN, AFTER = "2026-01-05T12:00", "2026-01-06T12:00"


def edge(origin: str, destination: str) -> str:
    return f"{origin}->{destination}"


@pytest.fixture
def etl_changed_its_input(graph: Any) -> None:  # type: ignore[no-untyped-def]
    orders = dataset("db", "sales.orders", fields=[("id", "bigint"), ("amount", "double")])
    refunds = dataset("db", "sales.refunds", fields=[("order_id", "bigint")])
    returns = dataset("db", "sales.returns", fields=[("order_id", "bigint")])
    daily_v1 = dataset("db", "mart.daily", fields=[("day", "date"), ("net", "double")])
    daily_v2 = dataset("db", "mart.daily", fields=[("day", "date"), ("net", "double"), ("returned", "bigint")])
    accept_and_apply(
        *lifecycle(run_id=RUN_DAY_0, job="etl", namespace="spark", day=0, inputs=[orders, refunds], outputs=[daily_v1]),
        *lifecycle(run_id=RUN_DAY_1, job="etl", namespace="spark", day=1, inputs=[orders, returns], outputs=[daily_v2]),
    )


def edge_ids(page: Any) -> set[str]:
    return set(page.evaluate("window.__tributaryGraph.edgeIds()"))


def classes(page: Any, element_id: str) -> set[str]:
    return set(page.evaluate("id => window.__tributaryGraph.classes(id)", element_id) or [])


def query(page: Any) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def wait_for_drawn(page: Any, *, present: set[str], absent: set[str] | None = None) -> None:
    page.wait_for_function(
        "([present, absent]) => { const g = window.__tributaryGraph; if (!g) return false; const ids = g.nodeIds();"
        " return present.every(id => ids.includes(id)) && absent.every(id => !ids.includes(id)); }",
        arg=[sorted(present), sorted(absent or set())],
    )
    graph_ready(page)


def hover_edge(page: Any, edge_id: str) -> str:
    point = page.evaluate("id => window.__tributaryGraph.edgePoint(id)", edge_id)
    assert point is not None, f"{edge_id} is not drawn"
    page.mouse.move(point["x"], point["y"])
    tooltip = page.locator(".graph-tooltip")
    tooltip.wait_for(state="visible")
    return tooltip.inner_text()


def test_the_explorer_draws_the_current_lineage_and_on_request_the_stale_edge_dashed_with_when_it_was_last_seen(
    logged_in: Any, live_server: Any, etl_changed_its_input: None, watch: PageWatch
) -> None:
    page = logged_in
    open_lineage(page, live_server, DAILY, depth=2)
    assert node_ids(page) == {ORDERS, RETURNS, ETL, DAILY}  # the input day 1 dropped is not current
    assert page.get_by_role("button", name="Now", exact=True).get_attribute("aria-pressed") == "true"
    assert "now" in page.inner_text("#graph-when")

    page.get_by_label("Show stale edges").check()
    wait_for_drawn(page, present={REFUNDS})
    assert query(page)["stale"] == ["1"]
    stale = edge(REFUNDS, ETL)
    assert "stale" in classes(page, stale)
    assert "stale" not in classes(page, edge(RETURNS, ETL))
    line = page.evaluate("id => window.__tributaryGraph.edgeLine(id)", stale)
    assert line["style"] == "dashed"
    assert page.evaluate("id => window.__tributaryGraph.edgeLine(id)", edge(RETURNS, ETL))["style"] == "solid"
    assert "1 stale edge" in page.inner_text("#graph-when")
    assert "stale edge" in page.inner_text("#edge-legend")

    tooltip = hover_edge(page, stale)
    assert "db:sales.refunds → spark:etl" in tooltip
    assert "stale since 2026-01-06" in tooltip  # the day-1 run that left it out
    assert "last seen 2026-01-05" in tooltip
    shot(page, "time-stale-edges")

    # The link reproduces the view.
    page.goto(page.url)
    graph_ready(page)
    assert node_ids(page) == {ORDERS, REFUNDS, RETURNS, ETL, DAILY}
    assert page.get_by_label("Show stale edges").is_checked()
    assert not watch.errors


def test_at_an_instant_between_the_two_runs_the_explorer_draws_what_etl_read_then_and_the_link_keeps_it(
    logged_in: Any, live_server: Any, etl_changed_its_input: None, watch: PageWatch
) -> None:
    page = logged_in
    open_lineage(page, live_server, DAILY, depth=2)
    # Keyboard only: the At… button opens its form and puts the focus in its input; Enter submits it.
    page.focus("#time-at")
    page.keyboard.press("Enter")
    assert page.locator("#time-at").get_attribute("aria-expanded") == "true"
    assert page.evaluate("document.activeElement.id") == "time-at-input"
    page.fill("#time-at-input", BETWEEN)
    page.keyboard.press("Enter")
    wait_for_drawn(page, present={REFUNDS}, absent={RETURNS})
    assert node_ids(page) == {ORDERS, REFUNDS, ETL, DAILY}
    assert query(page)["at"] == ["2026-01-05T12:00:00Z"]
    assert page.locator("#time-at").get_attribute("aria-pressed") == "true"
    assert "as at 2026-01-05 12:00Z" in page.inner_text("#graph-when")
    # The edge from refunds is stale now, but it held then: drawn as it was.
    then = edge(REFUNDS, ETL)
    assert "stale" not in classes(page, then)
    assert page.evaluate("id => window.__tributaryGraph.edgeLine(id)", then)["style"] == "solid"
    assert "current then; stale since 2026-01-06" in hover_edge(page, then)
    shot(page, "time-at-instant")

    page.goto(page.url)
    graph_ready(page)
    assert node_ids(page) == {ORDERS, REFUNDS, ETL, DAILY}
    assert page.input_value("#time-at-input") == BETWEEN

    page.get_by_role("button", name="Now", exact=True).click()
    wait_for_drawn(page, present={RETURNS}, absent={REFUNDS})
    assert "at" not in query(page)
    page.go_back()  # back to the instant
    wait_for_drawn(page, present={REFUNDS}, absent={RETURNS})
    assert not watch.errors


def test_comparing_two_instants_draws_one_graph_with_what_came_and_went_and_lists_the_changes(
    logged_in: Any, live_server: Any, etl_changed_its_input: None, watch: PageWatch
) -> None:
    page = logged_in
    open_lineage(page, live_server, DAILY, depth=2)
    page.get_by_role("button", name="Compare…").click()
    page.fill("#time-from", BETWEEN)
    page.fill("#time-to", AFTER)
    page.get_by_role("button", name="Compare", exact=True).click()
    wait_for_drawn(page, present={REFUNDS, RETURNS})
    assert query(page)["from"] == ["2026-01-05T12:00:00Z"] and query(page)["to"] == ["2026-01-06T12:00:00Z"]
    assert node_ids(page) == {ORDERS, REFUNDS, RETURNS, ETL, DAILY}

    assert "added" in classes(page, RETURNS) and "added" in classes(page, edge(RETURNS, ETL))
    assert "removed" in classes(page, REFUNDS) and "removed" in classes(page, edge(REFUNDS, ETL))
    assert "unchanged" in classes(page, ORDERS) and "unchanged" in classes(page, edge(ETL, DAILY))
    assert page.evaluate("id => window.__tributaryGraph.edgeLine(id)", edge(REFUNDS, ETL))["style"] == "dotted"
    labels = page.evaluate("ids => ids.map(id => window.__tributaryGraph.nodeLabel(id).text)", [RETURNS, REFUNDS])
    assert labels[0].startswith("+ ") and labels[1].startswith(f"{MINUS} ")  # a sign, not colour alone
    assert "2 added, 2 removed" in page.inner_text("#graph-when")
    legend = page.inner_text("#edge-legend")
    assert "+ added" in legend and f"{MINUS} removed" in legend and "unchanged" in legend
    assert page.get_by_label("Show stale edges").is_disabled()

    changes = page.locator("#changes")
    assert "2 added, 2 removed" in changes.locator("#change-summary").inner_text()
    datasets = changes.locator("#changes-datasets")
    assert datasets.locator(f"li[data-change='added'][data-id='{RETURNS}']").inner_text().startswith("+ added")
    assert (
        datasets.locator(f"li[data-change='removed'][data-id='{REFUNDS}']").inner_text().startswith(f"{MINUS} removed")
    )
    edges = changes.locator("#changes-edges")
    assert edges.locator(f"li[data-change='added'][data-edge='{edge(RETURNS, ETL)}']").count() == 1
    assert edges.locator(f"li[data-change='removed'][data-edge='{edge(REFUNDS, ETL)}']").count() == 1
    schema = changes.locator(f"#changes-schemas li[data-dataset='{DAILY}']")
    schema.wait_for()
    assert "returned" in schema.inner_text() and "added" in schema.inner_text()
    shot(page, "time-compare")

    tooltip = hover_edge(page, edge(REFUNDS, ETL))
    assert "removed" in tooltip

    # A change in the list selects its node; its details are one step from the list again.
    datasets.locator(f"li[data-id='{REFUNDS}'] button").click()
    page.locator(f"#side-panel .side-panel-content[data-node='{REFUNDS}'] h2.node-name").wait_for()
    assert query(page)["focus"] == [REFUNDS]
    page.get_by_role("button", name="← What changed").click()
    page.locator("#changes").wait_for()

    page.goto(page.url)  # the link reproduces the comparison
    graph_ready(page)
    assert "removed" in classes(page, REFUNDS)
    page.locator("#changes").wait_for()
    assert not watch.errors


def test_the_runs_page_says_how_each_runs_reads_changed_and_the_dataset_page_its_former_consumer(
    logged_in: Any, live_server: Any, etl_changed_its_input: None, watch: PageWatch
) -> None:
    page = logged_in
    page.goto(f"{live_server.url}/job?nodeId={ETL}")
    day_1 = page.locator(f"#runs tr[data-run='{RUN_DAY_1}'] .run-lineage-change")
    day_1.locator("li").first.wait_for()
    assert day_1.locator("li[data-change='added-reads']").inner_text() == "+ reads sales.returns"
    assert day_1.locator("li[data-change='removed-reads']").inner_text() == f"{MINUS} reads sales.refunds"
    day_0 = page.locator(f"#runs tr[data-run='{RUN_DAY_0}'] .run-lineage-change")
    page.wait_for_function("el => el.dataset.loaded", arg=day_0.element_handle())
    assert day_0.inner_text() == "first completed run"
    shot(page, "time-runs-lineage-change")

    page.goto(f"{live_server.url}/dataset?nodeId={REFUNDS}")
    former = page.locator("#former-consumers")
    former.wait_for()
    assert former.locator(f"li[data-job='{ETL}']").count() == 1
    assert "stopped 2026-01-06" in former.inner_text()
    assert page.locator(f"#consumers li[data-job='{ETL}']").count() == 0
    shot(page, "time-dataset-former-consumers")

    page.goto(f"{live_server.url}/dataset?nodeId={RETURNS}")
    page.locator(f"#consumers li[data-job='{ETL}']").wait_for()
    assert page.locator("#former-consumers li").count() == 0
    assert not watch.errors


def _between_runs(events: list[dict[str, Any]], job: str) -> tuple[str, str]:
    """An instant between the first and the second run of application job `job`, and one after every event
    (ISO 8601, milliseconds kept: the example's runs are seconds apart)."""
    times: dict[str, list[datetime]] = {}
    for event in events:
        if event["job"]["name"] == job:
            times.setdefault(event["run"]["runId"], []).append(_instant(event["eventTime"]))
    first, second = sorted(times.values(), key=min)[:2]
    between = max(first) + (min(second) - max(first)) / 2
    after = max(_instant(event["eventTime"]) for event in events) + timedelta(minutes=1)
    return _iso(between), _iso(after)


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@pytest.mark.spark
def test_on_the_example_pipeline_the_hold_list_clean_orders_dropped_is_stale_and_a_comparison_shows_it_swapped(
    logged_in: Any,
    live_server: Any,
    example: ExamplePipeline,
    watch: PageWatch,
) -> None:
    page = logged_in
    clean_orders, silver = "job:spark:clean_orders", example.dataset_id("silver/orders_clean")
    dropped, added = example.dataset_id(CLEAN_ORDERS_DROPPED_INPUT), example.dataset_id(CLEAN_ORDERS_ADDED_INPUT)
    open_lineage(page, live_server, silver, depth=2)
    assert added in node_ids(page) and dropped not in node_ids(page)
    page.get_by_label("Show stale edges").check()
    wait_for_drawn(page, present={dropped})
    assert "stale" in classes(page, edge(dropped, clean_orders))
    assert "stale" not in classes(page, edge(added, clean_orders))
    assert "stale since" in hover_edge(page, edge(dropped, clean_orders))
    shot(page, "time-example-stale")

    # The example's runs are seconds apart: the comparison is asked for by its link, to the millisecond (the
    # form's inputs, which the scenario's test fills, take whole seconds).
    between, after = _between_runs(example.events, "clean_orders")
    open_lineage(page, live_server, silver, depth=2, **{"from": between, "to": after})
    wait_for_drawn(page, present={dropped, added})
    assert page.locator("#time-compare").get_attribute("aria-pressed") == "true"
    assert "removed" in classes(page, dropped) and "removed" in classes(page, edge(dropped, clean_orders))
    assert "added" in classes(page, added) and "added" in classes(page, edge(added, clean_orders))
    assert "unchanged" in classes(page, clean_orders)
    changes = page.locator("#changes")
    assert changes.locator(f"#changes-datasets li[data-change='removed'][data-id='{dropped}']").count() == 1
    assert changes.locator(f"#changes-datasets li[data-change='added'][data-id='{added}']").count() == 1
    schema = changes.locator(f"#changes-schemas li[data-dataset='{silver}']").inner_text()
    assert "amount_eur" in schema and "currency" in schema
    shot(page, "time-example-compare")

    # The column view compares too: amount_eur came with the second run, from the EUR rates among others.
    open_lineage(
        page, live_server, silver, view="column", field="amount_eur", depth=2, **{"from": between, "to": after}
    )
    rate = f"datasetField:file:{example.dataset_id(CLEAN_ORDERS_ADDED_INPUT).removeprefix('dataset:file:')}:rate_to_eur"
    assert "added" in classes(page, rate)
    added_rows = page.locator("#upstream-fields tr[data-change='added']")
    assert any("eur_rates.csv.rate_to_eur" in row for row in added_rows.all_inner_texts())
    assert all(row.startswith("+ added") for row in added_rows.all_inner_texts())
    shot(page, "time-example-compare-columns")

    page.goto(f"{live_server.url}/job?nodeId={clean_orders}")
    rows = page.locator("#runs tr[data-run] .run-lineage-change")
    rows.locator("li[data-change='added-reads']").first.wait_for()
    latest = rows.first  # newest first: the second run
    assert "eur_rates.csv" in latest.locator("li[data-change='added-reads']").inner_text()
    assert "blocked_customers.csv" in latest.locator("li[data-change='removed-reads']").inner_text()
    shot(page, "time-example-runs")
    assert not watch.errors
