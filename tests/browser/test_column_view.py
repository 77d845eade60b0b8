"""The column view at a real width: a 40-column table read by three jobs, each writing three tables, stays readable
(every label at 9 px or more, no two cards, rows or labels overlapping), with its fields on the path and with all."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from tests.apply import accept_and_apply
from tests.browser.column_view import assert_column_view_readable
from tests.browser.conftest import shot
from tests.browser.scenario import column_lineage
from tests.browser.test_explorer import graph_ready, open_lineage
from tests.events import T0, dataset, run_event

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDE = "sales.order_events_wide"
COLUMNS = [f"attribute_{i:02d}" for i in range(39)] + ["order_id"]
JOBS = ("enrich_orders", "score_orders", "bill_orders")


def output_table(job: str, k: int) -> dict[str, Any]:
    """One of a job's three tables: its id copied from the wide table's, a measure aggregated from one of its
    columns, a region grouped by another, and a load time derived from nothing."""
    table = dataset(
        "warehouse",
        f"marts.{job}_output_{k}",
        fields=[("order_id", "bigint"), ("measure", "double"), ("region", "string"), ("loaded_at", "timestamp")],
    )
    column = COLUMNS[(JOBS.index(job) * 3 + k) % 39]
    table["facets"]["columnLineage"] = column_lineage(
        {
            "order_id": [("warehouse", WIDE, "order_id", "DIRECT", "IDENTITY")],
            "measure": [("warehouse", WIDE, column, "DIRECT", "AGGREGATION")],
            "region": [("warehouse", WIDE, COLUMNS[38], "INDIRECT", "GROUP_BY")],
        }
    )
    return table


@pytest.fixture
def wide_table(graph: Any) -> str:
    wide = dataset("warehouse", WIDE, fields=[(name, "string") for name in COLUMNS])
    events = []
    for j, job in enumerate(JOBS):
        run_id = f"6a1e0000-0000-4000-8000-00000000000{j}"
        outputs = [output_table(job, k) for k in range(3)]
        for event_type, minutes in (("START", 0), ("COMPLETE", 5)):
            events.append(
                run_event(
                    event_type,
                    run_id=run_id,
                    job=job,
                    at=T0 + timedelta(hours=j, minutes=minutes),
                    inputs=[wide],
                    outputs=outputs,
                )
            )
    accept_and_apply(*events)
    return f"dataset:warehouse:{WIDE}"


def test_a_wide_table_read_by_three_jobs_writing_three_tables_each_stays_readable(
    logged_in: Any, live_server: Any, wide_table: str
) -> None:
    page = logged_in
    open_lineage(page, live_server, wide_table, depth=2, direction="downstream", view="column", field="order_id")
    boxes = assert_column_view_readable(page)
    cards = [n for n in boxes["nodes"] if n["kind"] == "DATASET_GROUP"]
    assert len(cards) == 10
    shot(page, "column-view-wide-table-on-the-path")

    # Every field of every card: the wide table's 40 rows among them.
    page.click("#cards-all")
    page.wait_for_function(
        "n => window.__tributaryGraph.nodeIds().filter(id => id.startsWith('datasetField:')).length === n",
        arg=40 + 9 * 4,
    )
    graph_ready(page, "column")
    assert_column_view_readable(page)
    shot(page, "column-view-wide-table-all-fields")

    # Names only: each card is its head, the edges end there.
    page.click("#cards-name")
    page.wait_for_function("() => !window.__tributaryGraph.nodeIds().some(id => id.startsWith('datasetField:'))")
    assert_column_view_readable(page)
    assert f"card:{wide_table}->card:dataset:warehouse:marts.enrich_orders_output_0" in page.evaluate(
        "window.__tributaryGraph.edgeIds()"
    )
