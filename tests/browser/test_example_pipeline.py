"""The explorer on the graph the real example pipeline writes: long real names, application jobs."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, quote, urlparse

import pytest

from tests.apply import accept_and_apply
from tests.browser.column_view import READABLE_PX, assert_column_view_readable, field_path, inside, traced
from tests.browser.conftest import shot
from tests.browser.example_pipeline import (
    CLEAN_ORDERS_ADDED_INPUT,
    CLEAN_ORDERS_DROPPED_INPUT,
    ExamplePipeline,
)
from tests.browser.test_explorer import click_node, graph_ready, node_ids, open_lineage
from tests.events import dataset, run_event

pytestmark = [pytest.mark.browser, pytest.mark.spark, pytest.mark.django_db(transaction=True)]


def drawn_labels(page: Any) -> dict[str, dict[str, Any]]:
    return page.evaluate(
        "() => { const g = window.__tributaryGraph;"
        " return Object.fromEntries(g.nodeIds().map(id => [id, g.nodeLabel(id)])); }"
    )


def test_every_node_of_the_daily_revenue_lineage_has_a_readable_short_label_at_the_fit_zoom(
    logged_in: Any, live_server: Any, example: ExamplePipeline
) -> None:
    page = logged_in
    revenue = example.dataset_id("warehouse/daily_revenue")
    open_lineage(page, live_server, revenue, depth=8)
    ids = node_ids(page)
    assert revenue in ids and example.dataset_id("raw/orders.csv") in ids
    # The current graph: the reference input clean_orders' second run added, not the one it dropped (stale).
    assert example.dataset_id(CLEAN_ORDERS_ADDED_INPUT) in ids
    assert example.dataset_id(CLEAN_ORDERS_DROPPED_INPUT) not in ids
    assert len(ids) >= 8
    labels = drawn_labels(page)
    for node_id, label in labels.items():
        name = node_id.split(":", 2)[2] if node_id.startswith("dataset:file:") else node_id.rsplit(":", 1)[1]
        first_line = label["text"].split("\n")[0]
        assert first_line, f"{node_id} has no label"
        assert len(first_line) < len(name) or len(name) <= 32, f"{node_id} is labelled with its whole long name"
        assert label["screenFontPx"] >= READABLE_PX, f"{node_id}'s label is drawn at {label['screenFontPx']:.1f} px"
    assert labels[revenue]["text"].startswith("warehouse/daily_revenue")
    # validate_orders reports a failing check on bronze/orders: its label leads with the failing-quality mark.
    assert labels[example.dataset_id("bronze/orders")]["text"].startswith("✗ bronze/orders")
    shot(page, "example-daily-revenue-lineage", readme="lineage-explorer")


def test_hovering_a_node_shows_its_full_name(logged_in: Any, live_server: Any, example: ExamplePipeline) -> None:
    page = logged_in
    revenue = example.dataset_id("warehouse/daily_revenue")
    open_lineage(page, live_server, revenue, depth=2)
    point = page.evaluate("id => window.__tributaryGraph.nodePoint(id)", revenue)
    page.mouse.move(point["x"], point["y"])
    tooltip = page.locator(".graph-tooltip")
    tooltip.wait_for(state="visible")
    assert str(example.lake / "warehouse/daily_revenue") in tooltip.inner_text()


def test_the_application_job_shows_the_datasets_its_actions_read_and_wrote_and_expands_into_them(
    logged_in: Any, live_server: Any, example: ExamplePipeline
) -> None:
    page = logged_in
    app = "job:spark:daily_revenue"
    action = "job:spark:daily_revenue.create_table.default_daily_revenue"
    silver, revenue = example.dataset_id("silver/orders_clean"), example.dataset_id("warehouse/daily_revenue")
    open_lineage(page, live_server, app, depth=2)
    assert {app, silver, revenue} <= node_ids(page)
    assert action not in node_ids(page)
    assert drawn_labels(page)[app]["text"].startswith("daily_revenue")
    click_node(page, app)
    page.wait_for_selector("#expand-application")
    assert "create_table.default_daily_revenue" in page.inner_text("#side-panel")
    page.click("#expand-application")
    page.wait_for_function("id => window.__tributaryGraph.nodeIds().includes(id)", arg=action)
    assert app not in node_ids(page) and {silver, revenue} <= node_ids(page)
    # An action is labelled by its action suffix, not the application's name again.
    action_label = drawn_labels(page)[action]["text"]
    assert action_label.startswith("create_table") and not action_label.startswith("daily_revenue.")
    page.wait_for_selector("#collapse-application")
    shot(page, "example-application-expanded", readme="application-expanded")
    page.click("#collapse-application")
    page.wait_for_function("id => window.__tributaryGraph.nodeIds().includes(id)", arg=app)
    assert action not in node_ids(page)


def test_the_action_level_shows_every_action_job(logged_in: Any, live_server: Any, example: ExamplePipeline) -> None:
    page = logged_in
    open_lineage(page, live_server, example.dataset_id("warehouse/daily_revenue"), depth=8)
    assert "job:spark:daily_revenue" in node_ids(page)
    page.click("#level-action")
    page.wait_for_function(
        "id => window.__tributaryGraph.nodeIds().includes(id)",
        arg="job:spark:clean_orders.write_parquet.orders_clean",
    )
    assert "level=action" in page.url
    assert "job:spark:daily_revenue" not in node_ids(page)


def test_the_failure_page_headlines_validate_orders_by_its_root_cause_and_classification(
    logged_in: Any, live_server: Any, example: ExamplePipeline
) -> None:
    page = logged_in
    page.goto(f"{live_server.url}/failures")
    group = page.locator("#failure-groups tr[data-job='job:spark:validate_orders']")
    group.wait_for()
    assert "negative amount in order 250" in group.inner_text()
    card = page.locator("article.failure").first
    card.wait_for()
    headline = card.locator(".failure-cause").inner_text()
    assert headline.startswith("java.lang.RuntimeException") and "negative amount in order 250" in headline
    assert card.get_attribute("data-classification") == "data_validation"
    # The full stack is one click away, not in the way.
    assert not card.locator(".stack-trace").is_visible()
    shot(page, "example-failures", readme="failures")


def test_the_impact_report_of_bronze_orders_shows_the_owners_the_pipeline_declared(
    logged_in: Any, live_server: Any, example: ExamplePipeline
) -> None:
    page = logged_in
    bronze = example.dataset_id("bronze/orders")
    page.goto(f"{live_server.url}/impact?nodeId={quote(bronze, safe='')}")
    page.wait_for_selector(".impact-table")
    silver_row = page.locator(f"tr[data-asset='{example.dataset_id('silver/orders_clean')}']")
    assert "team:data-platform" in silver_row.locator(".owner-chip").all_inner_texts()
    revenue_row = page.locator(f"tr[data-asset='{example.dataset_id('warehouse/daily_revenue')}']")
    assert "team:finance-analytics" in revenue_row.locator(".owner-chip").all_inner_texts()
    # An application appears once, with its actions listed under it.
    app_row = page.locator("tr[data-asset='job:spark:daily_revenue']")
    assert app_row.count() == 1 and "create_table" in app_row.locator(".impact-actions").inner_text()
    assert page.locator("tr[data-asset^='job:spark:daily_revenue.']").count() == 0
    # Headers are laid out on one line at this width (no "Dis tan ce").
    heights = page.eval_on_selector_all(".impact-table th", "ths => ths.map(th => th.getBoundingClientRect().height)")
    assert max(heights) < 2 * min(heights)
    shot(page, "example-impact", readme="impact")


def test_the_side_panel_shows_the_owners_the_pipeline_declared_and_its_full_name(
    logged_in: Any, live_server: Any, example: ExamplePipeline
) -> None:
    page = logged_in
    silver = example.dataset_id("silver/orders_clean")
    open_lineage(page, live_server, silver, depth=4)
    click_node(page, silver)
    page.locator("#side-panel ul.owners").get_by_text("team:data-platform").wait_for()
    assert page.locator("#side-panel h2.node-name").inner_text() == str(example.lake / "silver/orders_clean")
    # Its latest run was signed with the example's key, as `make run` signs it.
    page.locator("#side-panel .latest-verification [data-verification='VERIFIED']").wait_for()
    shot(page, "example-side-panel", readme="side-panel")


def revenue_column_lineage(page: Any, live_server: Any, example: ExamplePipeline) -> tuple[str, dict[str, Any]]:
    """The column view of `daily_revenue.revenue`'s upstream at depth 6, drawn; the field's id and the API's answer."""
    revenue = example.dataset_id("warehouse/daily_revenue")
    open_lineage(page, live_server, revenue, depth=6, direction="upstream", view="column", field="revenue")
    field = f"datasetField:{revenue.removeprefix('dataset:')}:revenue"
    answer = page.request.get(
        f"{live_server.url}/api/v1/column-lineage?nodeId={quote(field, safe='')}&depth=6&direction=upstream"
    ).json()
    return field, answer


def test_the_column_view_of_revenue_draws_every_upstream_dataset_card_inside_the_viewport_with_nothing_overlapping(
    logged_in: Any, live_server: Any, example: ExamplePipeline
) -> None:
    page = logged_in
    field, answer = revenue_column_lineage(page, live_server, example)
    boxes = assert_column_view_readable(page)
    datasets = {f"dataset:{n['data']['namespace']}:{n['data']['dataset']}" for n in answer["graph"]}
    assert len(datasets) >= 5 and example.dataset_id("raw/orders.csv") in datasets
    cards = {n["id"]: n["box"] for n in boxes["nodes"] if n["kind"] == "DATASET_GROUP"}
    assert set(cards) == datasets
    for card, box in cards.items():
        assert inside(box, boxes["canvas"]), f"{card} is not wholly inside the viewport at the fit zoom: {box}"
    # Only the fields on the path: one row per field of the answer, under each card's head.
    fields = {n["id"] for n in boxes["nodes"] if n["kind"] == "DATASET_FIELD"}
    assert fields == {n["id"] for n in answer["graph"]}
    # The transformation is told by the edge's style, not a label: the aggregation into revenue is solid, a join dashed.
    amount = f"datasetField:{example.dataset_id('silver/orders_clean').removeprefix('dataset:')}:amount"
    assert page.evaluate("id => window.__tributaryGraph.edgeLine(id)", f"{amount}->{field}")["style"] == "solid"
    joins = [
        f"{e['origin']}->{e['destination']}" for n in answer["graph"] for e in n["inEdges"] if e["subtype"] == "JOIN"
    ]
    assert joins and page.evaluate("id => window.__tributaryGraph.edgeLine(id)", joins[0])["style"] == "dashed"
    assert "Direct" in page.inner_text("#transformation-legend") and "join" in page.inner_text("#transformation-legend")
    shot(page, "example-column-lineage", readme="column-lineage")
    # The field table waits in a closed drawer; open, it leaves the graph drawn whole above it.
    assert page.locator("#field-drawer-body").is_hidden()
    page.click("#field-drawer-toggle")
    upstream = page.locator("#upstream-fields").inner_text()
    assert "orders_clean.amount" in upstream and "AGGREGATION" in upstream
    canvas = page.locator("#graph canvas").first.bounding_box()
    graph = page.locator("#graph").bounding_box()
    assert abs(canvas["height"] - graph["height"]) <= 1 and graph["height"] >= 300
    shot(page, "example-column-lineage-drawer-open")


# Whether the renderer draws exactly `path` (node and edge ids) as the traced path: it re-marks the graph after
# the side panel shows the clicked field, so a test waits for the marks to settle before it reads them.
TRACED = """path => {
  const graph = window.__tributaryGraph;
  const drawn = [...graph.nodeIds(), ...graph.edgeIds()].filter(id => String(graph.classes(id)).includes('traced'));
  return drawn.length === path.length && drawn.every(id => path.includes(id));
}"""


def test_clicking_a_field_in_the_column_view_highlights_exactly_its_path(
    logged_in: Any, live_server: Any, example: ExamplePipeline
) -> None:
    page = logged_in
    field, answer = revenue_column_lineage(page, live_server, example)
    country = f"datasetField:{example.dataset_id('silver/orders_clean').removeprefix('dataset:')}:country"
    click_node(page, country)
    page.wait_for_selector(f"#side-panel .traced-field[data-field-id='{country}']")
    page.wait_for_function(TRACED, arg=sorted(field_path(answer, country)))
    assert traced(page) == field_path(answer, country)
    assert field_path(answer, country) < field_path(answer, field)  # the rest is drawn faded
    faded = next(iter(field_path(answer, field) - field_path(answer, country)))
    assert "faded" in page.evaluate("id => window.__tributaryGraph.classes(id)", faded)
    # Its edges in words in the side panel: where it comes from, by which transformation and job.
    assert "indirect · group by" in page.inner_text("#field-feeds")
    shot(page, "example-column-lineage-traced")
    click_node(page, field)
    page.wait_for_selector(f"#side-panel .traced-field[data-field-id='{field}']")
    page.wait_for_function(TRACED, arg=sorted(field_path(answer, field)), timeout=10_000)
    assert traced(page) == field_path(answer, field)


def test_two_quick_clicks_on_two_fields_trace_the_second_and_only_a_double_click_opens_a_field(
    logged_in: Any, live_server: Any, example: ExamplePipeline
) -> None:
    page = logged_in
    _, answer = revenue_column_lineage(page, live_server, example)
    clean = example.dataset_id("silver/orders_clean").removeprefix("dataset:")
    country, amount = f"datasetField:{clean}:country", f"datasetField:{clean}:amount"
    drawn_at = page.url
    # Two clicks on two fields faster than a double click: the second field is traced, and nothing opens.
    click_node(page, country)
    click_node(page, amount)
    page.wait_for_function(TRACED, arg=sorted(field_path(answer, amount)))
    page.wait_for_timeout(600)  # past the double-click window and a page load's first frame
    assert page.url == drawn_at
    assert traced(page) == field_path(answer, amount)
    # A double click on one field opens that field's own column lineage.
    point = page.evaluate("id => window.__tributaryGraph.nodePoint(id)", amount)
    page.mouse.dblclick(point["x"], point["y"])
    page.wait_for_url("**field=amount**")
    graph_ready(page, "column")
    opened = parse_qs(urlparse(page.url).query)
    assert opened["focus"] == [example.dataset_id("silver/orders_clean")] and opened["field"] == ["amount"]


def test_two_datasets_with_no_path_between_them_say_why_they_are_not_connected(
    logged_in: Any, live_server: Any, example: ExamplePipeline
) -> None:
    # A BI export reads the revenue table by its copy in an object store: the same table name in
    # another namespace, which no event ties to the lake's path.
    copy = dataset("s3://reports-bucket", "finance/daily_revenue")
    accept_and_apply(
        run_event(
            "COMPLETE",
            run_id="5f0c2c51-0000-4000-8000-000000000001",
            job="export_revenue",
            namespace="airflow",
            inputs=[copy],
        )
    )
    page = logged_in
    revenue, copy_id = (
        example.dataset_id("warehouse/daily_revenue"),
        "dataset:s3://reports-bucket:finance/daily_revenue",
    )
    page.goto(f"{live_server.url}/lineage?nodeId={quote(revenue, safe='')}&nodeId={quote(copy_id, safe='')}&depth=1")
    graph_ready(page)
    click_node(page, revenue, shift=True)
    click_node(page, copy_id, shift=True)
    page.locator("#near-miss").wait_for()
    assert "No path between warehouse/daily_revenue and finance/daily_revenue" in page.inner_text("#path-result")
    assert "daily_revenue" in page.inner_text("#near-miss")
    shot(page, "example-near-miss")


def test_the_pages_show_what_the_agent_s_facets_say_of_clean_orders_and_the_rows_each_run_wrote(
    logged_in: Any, live_server: Any, example: ExamplePipeline
) -> None:
    page = logged_in
    silver = example.dataset_id("silver/orders_clean")
    sent = page.request.get(f"{live_server.url}/api/v1/datasets/detail?nodeId={quote(silver, safe='')}").json()
    written = [(s["runId"], s["rowCount"]) for s in sent["writeStatistics"]]
    assert len(written) == 2 and all(rows for _, rows in written)  # clean_orders ran twice
    page.goto(f"{live_server.url}/dataset?nodeId={quote(silver, safe='')}")
    bars = page.locator("#write-trend figure[data-measure='rowCount'] rect[data-run]")
    bars.first.wait_for()
    drawn = bars.evaluate_all("bars => bars.map(b => [b.dataset.run, Number(b.dataset.value)])")
    assert [tuple(bar) for bar in drawn] == written
    shot(page, "example-dataset-write-trend")

    # The application job's type and, in its run's details, the Spark that ran it.
    page.goto(f"{live_server.url}/job?nodeId={quote('job:spark:clean_orders', safe='')}")
    page.locator("#job-facets [data-facets='jobType']").wait_for()
    assert page.locator("#job-facets [data-facets='jobType'] li").all_inner_texts()[1:] == ["SPARK", "APPLICATION"]
    page.locator("#runs button", has_text="details").first.click()
    engine = page.locator(".run-facets [data-facets='processing_engine'] dd").first.inner_text()
    assert engine.startswith("spark ") or engine.startswith("Spark ")
    # The application run read and wrote through its actions: its details name those datasets, not "—".
    reads = page.locator(".run-detail [data-io='read']").first.inner_text()
    assert reads.startswith("Read: through its steps: ") and "bronze/orders" in reads, reads
    assert "silver/orders_clean" in page.locator(".run-detail [data-io='wrote']").first.inner_text()


def test_searching_a_run_id_lands_on_that_run(logged_in: Any, live_server: Any, example: ExamplePipeline) -> None:
    # The id `spark_agent.with_run_id` stamps into rows: the application's run (its events name no parent).
    application_runs = [
        event
        for event in example.events
        if event["job"]["name"] == "clean_orders" and "parent" not in (event["run"].get("facets") or {})
    ]
    last = application_runs[-1]
    run_id, job_id = last["run"]["runId"], f"job:{last['job']['namespace']}:clean_orders"
    page = logged_in
    page.goto(f"{live_server.url}/")
    page.fill("#search", run_id)
    result = page.locator(f"#search-results li[data-id='run:{run_id}']")
    result.wait_for()
    assert result.locator(".tag").inner_text().lower() == "run"
    assert "run id" in result.inner_text() and "clean_orders" in result.inner_text()
    shot(page, "search-run-id")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/job?nodeId={quote(job_id, safe='')}&run={run_id}")
    focus = page.locator(f"#run-focus[data-run='{run_id}']")
    focus.get_by_text(f"run {run_id}", exact=True).wait_for()  # the run's own line, not its ledger cells
    assert run_id in focus.inner_text() and "COMPLETED" in focus.inner_text().upper()
    page.locator(f"#runs tr.run-focused[data-run='{run_id}']").wait_for()
    page.locator(".page-head .node-name").wait_for()
    assert page.locator(".page-head .node-name").inner_text() == "clean_orders"
    shot(page, "run-page-from-search")
