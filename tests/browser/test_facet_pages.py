"""Job, run and dataset facets on their pages, in a real browser, after real producers' events posted over HTTP;
and the same pages inert to markup and `javascript:` links a hostile producer sends in its facets."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from tests.browser.conftest import PageWatch, shot
from tests.browser.test_explorer import click_node, open_lineage, wait_for_nodes
from tests.explorer.producer_facets import (
    AIRFLOW_JOB_ID,
    AIRFLOW_RUN,
    DBT_JOB_ID,
    DBT_LOCATION_URL,
    DBT_SQL,
    EVIL_DATASET_ID,
    EVIL_IMG,
    EVIL_JOB_ID,
    EVIL_LINK,
    EVIL_RUN,
    EVIL_SCRIPT,
    SPARK_DATASET_ID,
    SPARK_RUNS,
    SPARK_WRITES,
    airflow_task_run,
    dbt_model_run,
    evil_run,
    spark_table_writes,
)
from tests.graph.identity_events import catalog_events

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def job_page(page: Any, live_server: Any, job_id: str) -> Any:
    page.goto(f"{live_server.url}/job?nodeId={quote(job_id, safe='')}")
    facets = page.locator("#job-facets")
    facets.wait_for(state="attached")
    return facets


def test_a_dbt_model_s_job_page_shows_its_sql_documentation_location_tags_and_type(
    logged_in: Any, live_server: Any, send: Any, watch: PageWatch
) -> None:
    send(dbt_model_run())
    page = logged_in
    facets = job_page(page, live_server, DBT_JOB_ID)
    sql = facets.locator("[data-facets='sql']")
    assert sql.locator("h3").text_content() == "SQL · postgres"
    assert sql.locator(".tok-keyword").first.inner_text() == "with"
    assert sql.locator(".tok-comment").first.inner_text() == "-- orders, one row per order with its payments"
    assert sql.locator(".tok-string").first.inner_text() == "'success'"
    # Long SQL is folded to its first lines, and shown whole on request.
    pre = sql.locator("pre.code")
    folded_height = pre.evaluate("e => e.clientHeight")
    assert "folded" in (pre.get_attribute("class") or "") and pre.evaluate("e => e.scrollHeight") > folded_height
    sql.get_by_role("button", name="Show all 14 lines of SQL").click()
    assert pre.evaluate("e => e.clientHeight") > folded_height and pre.inner_text() == DBT_SQL

    docs = facets.locator("[data-facets='documentation'] .markdown")
    assert docs.locator("h4").inner_text() == "Orders"
    assert docs.locator("strong").inner_text() == "order" and docs.locator("em").inner_text() == "successful"
    assert docs.locator("li code").all_inner_texts() == ["stg_orders", "stg_payments"]
    assert (
        docs.get_by_role("link", name="analytics DAG").get_attribute("href")
        == "https://airflow.example.com/dags/analytics"
    )

    location = facets.locator("[data-facets='sourceCodeLocation']")
    code_link = location.get_by_role("link", name="models/marts/orders.sql")
    assert code_link.get_attribute("href") == DBT_LOCATION_URL and code_link.get_attribute("target") == "_blank"
    facts = dict(zip(location.locator("dt").all_inner_texts(), location.locator("dd").all_inner_texts(), strict=True))
    assert (facts["Commit"], facts["Branch"], facts["Pull request"]) == ("3f2a9c1e8b7d", "main", "#418")
    assert facets.locator("[data-facets='tags'] li").all_inner_texts() == ["layer: mart", "pii: false"]
    assert facets.locator("[data-facets='jobType'] li").all_inner_texts() == ["BATCH", "DBT", "MODEL"]
    shot(page, "facets-job-page")

    # The explorer's side panel for the job shows the same.
    open_lineage(page, live_server, DBT_JOB_ID)
    wait_for_nodes(page, {DBT_JOB_ID})
    click_node(page, DBT_JOB_ID)
    panel = page.locator(f"#side-panel .side-panel-content[data-node='{DBT_JOB_ID}']")
    assert panel.locator("[data-facets='sql'] .tok-keyword").first.inner_text() == "with"
    assert panel.locator("[data-facets='sourceCodeLocation'] dd", has_text="#418").count() == 1
    shot(page, "facets-job-side-panel")
    assert watch.dialogs == [] and watch.errors == []


def test_an_airflow_task_s_run_shows_its_nominal_time_tags_engine_and_parameters(
    logged_in: Any, live_server: Any, send: Any, watch: PageWatch
) -> None:
    send(airflow_task_run())
    page = logged_in
    facets = job_page(page, live_server, AIRFLOW_JOB_ID)
    assert facets.locator("[data-facets='jobType'] li").all_inner_texts() == ["BATCH", "AIRFLOW", "TASK"]
    page.locator(f"tr[data-run='{AIRFLOW_RUN}'] button", has_text="details").click()
    run = page.locator(".run-facets")
    assert run.locator("[data-facets='nominalTime']").inner_text().endswith("2026-01-05 00:00Z → 2026-01-06 00:00Z")
    assert run.locator("[data-facets='tags'] li").all_inner_texts() == ["team: sales", "tier: 1"]
    assert run.locator("[data-facets='processing_engine'] dd").all_inner_texts() == ["Airflow 2.10.3", "1.54.0"]
    assert run.locator("[data-facets='externalQuery'] dd").all_inner_texts() == ["bigquery", "bquxjob_5e1f_19a3"]
    parameters = run.locator("[data-table='parameters'] tbody tr")
    assert [row.locator("td").all_inner_texts() for row in parameters.all()] == [
        ["ds", "", "2026-01-05", "logical date"],
        ["full_refresh", "Full refresh", "false", ""],
    ]
    assert run.locator("[data-table='environment'] tbody td").all_inner_texts() == ["AIRFLOW_ENV", "prod", "TZ", "UTC"]
    shot(page, "facets-run-details")
    assert watch.dialogs == [] and watch.errors == []


def test_a_spark_table_s_page_shows_its_storage_and_the_rows_and_bytes_each_run_wrote(
    logged_in: Any, live_server: Any, send: Any, watch: PageWatch
) -> None:
    send(spark_table_writes())
    page = logged_in
    page.goto(f"{live_server.url}/dataset?nodeId={quote(SPARK_DATASET_ID, safe='')}")
    about = page.locator("#dataset-about")
    about.wait_for()
    facts = dict(zip(about.locator("dt").all_inner_texts(), about.locator("dd").all_inner_texts(), strict=True))
    assert facts == {
        "Type": "TABLE · MANAGED",
        "Storage": "delta · parquet",
        "Hierarchy": "DATABASE sales \u203a TABLE orders_enriched",
        "Version": "9",
        "Data source": "s3://lake",
        "Source URI": "s3://lake",  # not an http(s) URL: text, not a link
        "Catalog": "spark_catalog · hive · hive",
        "Catalog metadata": "thrift://metastore:9083",
    }
    assert about.locator("a").count() == 0
    assert page.locator("#dataset-facets [data-facets='documentation'] strong").inner_text() == "region"
    assert page.locator("#dataset-facets [data-facets='tags'] li").all_inner_texts() == [
        "domain: sales",
        "region · pii",
    ]
    for measure, values in (("rowCount", [r for r, _ in SPARK_WRITES]), ("bytes", [b for _, b in SPARK_WRITES])):
        bars = page.locator(f"#write-trend figure[data-measure='{measure}'] rect[data-run]")
        assert bars.evaluate_all("bars => bars.map(b => [b.dataset.run, Number(b.dataset.value)])") == [
            [run_id, value] for run_id, value in zip(SPARK_RUNS, values, strict=True)
        ]
        heights = bars.evaluate_all("bars => bars.map(b => Number(b.getAttribute('height')))")
        assert heights.index(max(heights)) == 1  # the second run wrote the most
    caption = page.locator("#write-trend figure[data-measure='rowCount'] figcaption").inner_text()
    assert caption == "Rows written latest 98,250"
    shot(page, "facets-dataset-page")
    assert watch.dialogs == [] and watch.errors == []


def test_markup_and_javascript_links_in_facets_stay_text_on_every_page(
    logged_in: Any, live_server: Any, send: Any, watch: PageWatch
) -> None:
    send(evil_run())
    page = logged_in
    pwned = "() => window.__pwned === undefined"

    facets = job_page(page, live_server, EVIL_JOB_ID)
    facets.locator("[data-facets='documentation']").wait_for()
    page.locator(f"tr[data-run='{EVIL_RUN}'] button", has_text="details").click()
    page.locator(".run-facets [data-facets='tags']").wait_for()
    text = page.locator("#outlet").inner_text()
    for literal in (EVIL_SCRIPT, EVIL_IMG, EVIL_LINK):
        assert literal in text
    assert page.locator("[data-facets='sql'] h3").text_content() == f"SQL · {EVIL_SCRIPT}"
    assert page.locator(".run-facets [data-facets='tags'] li").inner_text() == f"{EVIL_IMG}: {EVIL_SCRIPT}"
    page.wait_for_timeout(300)  # an injected image would have failed to load and fired its handler by now
    inert(page)
    assert page.evaluate(pwned)
    shot(page, "facets-xss-job-page")

    page.goto(f"{live_server.url}/dataset?nodeId={quote(EVIL_DATASET_ID, safe='')}")
    page.locator("#dataset-facets [data-facets='documentation']").wait_for()
    assert EVIL_IMG in page.locator("#dataset-facets").inner_text()
    page.wait_for_timeout(300)
    inert(page)
    assert page.evaluate(pwned)

    open_lineage(page, live_server, EVIL_JOB_ID)
    wait_for_nodes(page, {EVIL_JOB_ID})
    click_node(page, EVIL_JOB_ID)
    panel = page.locator(f"#side-panel .side-panel-content[data-node='{EVIL_JOB_ID}']")
    panel.locator("[data-facets='documentation']").wait_for()
    # The unsafe link targets are text; clicking them goes nowhere.
    for unsafe in panel.locator(".unsafe-link").all():
        unsafe.click()
    page.wait_for_timeout(300)
    inert(page)
    assert page.evaluate(pwned) and "/lineage" in page.url
    assert watch.dialogs == [] and watch.errors == []


def inert(page: Any) -> None:
    """No element the hostile facets name exists, and no link leads anywhere but http(s) or mailto."""
    assert page.locator("#outlet script, #outlet img, #outlet iframe, #outlet [onerror]").count() == 0
    hrefs = page.locator("#outlet a[href]").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert all(not href.lower().startswith(("javascript:", "data:", "vbscript:")) for href in hrefs), hrefs


def test_a_table_named_by_its_catalog_shows_its_catalog_hierarchy_and_every_name_it_is_known_by(
    logged_in: Any, live_server: Any, send: Any, watch: PageWatch
) -> None:
    send(catalog_events())
    page = logged_in
    page.goto(
        f"{live_server.url}/dataset?nodeId={quote('dataset:trino://trino:8080:iceberg.sales.customers', safe='')}"
    )
    about = page.locator("#dataset-about")
    about.wait_for()
    assert (
        page.locator("h1.node-name").inner_text() == "warehouse/sales.db/customers"
    )  # Trino's name: the location's page
    facts = dict(zip(about.locator("dt").all_inner_texts(), about.locator("dd").all_inner_texts(), strict=True))
    assert facts["Hierarchy"] == "DATABASE sales \u203a TABLE customers"
    assert facts["Catalog"] == "iceberg · iceberg · hive"  # the newest sent: Trino's
    aliases = page.locator("#dataset-aliases li")
    kinds = aliases.evaluate_all("items => items.map(i => i.dataset.aliasKind)")
    assert sorted(zip(kinds, aliases.all_inner_texts(), strict=True)) == [
        ("catalog", "hive://metastore-0:9083:sales.customers · catalog by spark:customers.load"),
        ("dataset", "hive://metastore-0:9083:spark_catalog.sales.customers · named by spark:customers.report"),
        ("dataset", "s3a://lake:warehouse/sales.db/customers · named by spark:customers.load"),
        ("dataset", "trino://trino:8080:iceberg.sales.customers · named by trino:customers.dashboard"),
    ]
    shot(page, "dataset-catalog-aliases")
    assert watch.dialogs == [] and watch.errors == []
