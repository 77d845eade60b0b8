"""A run's place in its chain in a real browser, after an Airflow DAG -> task -> Spark application -> actions chain
posted over HTTP children first: the DAG run's page nests the task, the application and its actions, and the
application's page links its root and parent, lists its actions, and folds the Spark integration's own facets."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from tests.browser.conftest import PageWatch
from tests.explorer.airflow_spark_chain import ACTION_RUNS, APP_RUN, DAG, DAG_RUN, TASK_RUN, chain_runs

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_dag_run_page_nests_its_task_application_and_actions_and_each_links_up(
    logged_in: Any, live_server: Any, send: Any, watch: PageWatch
) -> None:
    runs = chain_runs()
    for level in ("action2", "action1", "application", "task", "dag"):
        send(runs[level])
    page = logged_in
    page.goto(f"{live_server.url}/job?nodeId={quote(DAG, safe='')}&run={DAG_RUN}")
    tree = page.locator("#run-focus .run-steps")
    tree.wait_for()
    task = tree.locator(f"li:has(> [data-run='{TASK_RUN}'])")
    application = task.locator(f"li:has(> [data-run='{APP_RUN}'])")
    actions = application.locator("li > .run-ref")
    assert [actions.nth(i).get_attribute("data-run") for i in range(actions.count())] == list(ACTION_RUNS)
    assert page.locator("#run-focus .run-root").count() == 0  # a root has none above it
    application.locator(f"[data-run='{APP_RUN}'] a").first.click()
    page.wait_for_url(lambda url: f"run={APP_RUN}" in url)
    root = page.locator("#run-focus .run-root [data-run]")
    root.wait_for()
    assert root.get_attribute("data-run") == DAG_RUN
    assert page.locator("#run-focus .run-parent [data-run]").get_attribute("data-run") == TASK_RUN
    steps = page.locator("#run-focus .run-steps .run-ref")
    assert [steps.nth(i).get_attribute("data-run") for i in range(steps.count())] == list(ACTION_RUNS)
    assert "orders_nightly.spark_transform" in page.locator("#run-focus .run-parent").inner_text()
    # The Spark integration's own facets, folded under the run's other facets, written out as sent when opened.
    others = page.locator("#run-focus [data-facets='other'] .other-facet")
    assert [others.nth(i).get_attribute("data-facet") for i in range(others.count())] == [
        "spark_applicationDetails",
        "spark_properties",
    ]
    others.first.locator("summary").click()
    # The JSON is written out on the fold's toggle event, which the browser fires after the click returns.
    others.first.locator("pre").get_by_text('"deployMode": "cluster"').wait_for()
    assert not watch.errors and not watch.dialogs
