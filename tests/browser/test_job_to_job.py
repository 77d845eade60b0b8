"""Jobs linked to jobs in a real browser, after producers' events posted over HTTP: a declared dependency drawn as a
dotted `declared` edge and listed on the job page; a temporary dataset hidden behind a job -> job edge until the
toolbar's toggle shows it; a partition write shown as that partition on the run and dataset pages."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from tests.browser.conftest import PageWatch
from tests.browser.test_explorer import graph_ready, node_ids, open_lineage, wait_for_nodes
from tests.explorer.job_to_job import (
    EXTRACT_ID,
    LOAD_ID,
    ORDERS_ID,
    PARTITION_JOB_ID,
    PARTITION_RUNS,
    PUBLISH_ID,
    RAW_ID,
    STAGE_ID,
    TEMP_ID,
    airflow_dag_run,
    partition_writes,
    spark_with_temporary,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def edge_ids(page: Any) -> set[str]:
    return set(page.evaluate("window.__tributaryGraph.edgeIds()"))


def test_a_declared_dependency_is_a_dotted_declared_edge_and_listed_on_the_job_page(
    logged_in: Any, live_server: Any, send: Any, watch: PageWatch
) -> None:
    send(airflow_dag_run())
    page = logged_in
    open_lineage(page, live_server, LOAD_ID, level="action", direction="upstream", depth=2)
    declared = f"{EXTRACT_ID}->{LOAD_ID}"
    assert declared in edge_ids(page)
    assert "declared" in page.evaluate("id => window.__tributaryGraph.classes(id)", declared)
    assert page.evaluate("id => window.__tributaryGraph.edgeLine(id)", declared)["style"] == "dotted"
    point = page.evaluate("id => window.__tributaryGraph.edgePoint(id)", declared)
    page.mouse.move(point["x"], point["y"])
    tooltip = page.locator(".graph-tooltip")
    tooltip.wait_for(state="visible")
    assert "declared dependency" in tooltip.inner_text()
    page.goto(f"{live_server.url}/job?nodeId={quote(LOAD_ID, safe='')}")
    dependencies = page.locator("#job-dependencies")
    dependencies.wait_for()
    upstream = dependencies.locator("[data-direction='upstream']")
    assert upstream.inner_text() == "after airflow://prod:orders_daily.extract"
    assert "DIRECT_INVOCATION" in (upstream.get_attribute("title") or "")
    assert not watch.errors and not watch.dialogs


def test_a_temporary_dataset_is_hidden_behind_a_job_to_job_edge_until_the_toggle_shows_it(
    logged_in: Any, live_server: Any, send: Any, watch: PageWatch
) -> None:
    send(spark_with_temporary())
    page = logged_in
    open_lineage(page, live_server, RAW_ID, direction="downstream", depth=6)
    wait_for_nodes(page, {STAGE_ID, PUBLISH_ID})
    assert TEMP_ID not in node_ids(page)
    through = f"{STAGE_ID}->{PUBLISH_ID}"
    assert "via-temporary" in page.evaluate("id => window.__tributaryGraph.classes(id)", through)
    toggle = page.locator("#show-temporary")
    assert not toggle.is_checked()
    toggle.check()
    page.wait_for_url(lambda url: "temporary=1" in url)
    wait_for_nodes(page, {TEMP_ID})
    graph_ready(page)
    assert {f"{STAGE_ID}->{TEMP_ID}", f"{TEMP_ID}->{PUBLISH_ID}"} <= edge_ids(page)
    assert through not in edge_ids(page)
    # Back: the place without temporary datasets again.
    page.go_back()
    page.wait_for_function("id => !window.__tributaryGraph.nodeIds().includes(id)", arg=TEMP_ID)
    assert not page.locator("#show-temporary").is_checked()
    assert not watch.errors and not watch.dialogs


def test_a_partition_write_shows_as_that_partition_on_the_run_and_dataset_pages(
    logged_in: Any, live_server: Any, send: Any, watch: PageWatch
) -> None:
    send(partition_writes())
    page = logged_in
    page.goto(f"{live_server.url}/job?nodeId={quote(PARTITION_JOB_ID, safe='')}&run={PARTITION_RUNS[1]}")
    chip = page.locator(f"#run-focus .run-writes [data-subset='{ORDERS_ID}']")
    chip.wait_for()
    assert chip.inner_text() == "partition date=2026-11-24"
    assert page.locator("#run-focus .run-reads .tag-subset").count() == 0  # raw/orders was read whole
    page.goto(f"{live_server.url}/dataset?nodeId={quote(ORDERS_ID, safe='')}")
    runs = page.locator("#last-runs")
    runs.wait_for()
    assert [runs.locator(f"li[data-run='{run}'] .tag-subset").inner_text() for run in PARTITION_RUNS] == [
        "partition date=2026-11-23",
        "partition date=2026-11-24",
    ]
    assert not watch.errors and not watch.dialogs
