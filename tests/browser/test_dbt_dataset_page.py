"""A dbt model's table on the dataset page: its columns' descriptions, the types `dbt docs generate` filled
in later, and no schema drift for them."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any
from urllib.parse import quote

import pytest

from tests.apply import accept_and_apply
from tests.browser.conftest import shot
from tests.events import T0
from tests.graph.dbt_events import COLUMNS, NAMESPACE, TABLE, dbt_model_run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TYPES = {"order_id": "INTEGER", "status": "VARCHAR", "amount": "DECIMAL(18,2)"}
RUN_IDS = [f"7e41c0d2-3000-4000-8000-00000000000{i}" for i in range(4)]


@pytest.fixture
def dbt_runs(graph: Any) -> None:  # type: ignore[no-untyped-def]
    """`dbt-ol run` before `dbt docs generate` (no types), then after it (types)."""
    accept_and_apply(
        *dbt_model_run(run_id=RUN_IDS[0], parent_run=RUN_IDS[1], at=T0, description="Orders, cleaned"),
        *dbt_model_run(
            run_id=RUN_IDS[2], parent_run=RUN_IDS[3], at=T0 + timedelta(days=1), description="Orders", types=TYPES
        ),
    )


def test_the_schema_table_shows_each_columns_description_and_filled_in_type(
    logged_in: Any, live_server: Any, dbt_runs: None
) -> None:
    page = logged_in
    page.goto(f"{live_server.url}/dataset?nodeId={quote(f'dataset:{NAMESPACE}:{TABLE}', safe='')}")
    page.locator("#schema tbody tr").first.wait_for()
    for name, description in COLUMNS:
        row = page.locator(f'#schema tr[data-field="{name}"]')
        assert row.locator("td.mono").inner_text() == TYPES[name]
        assert row.locator("td.field-description").inner_text() == description
    page.locator("#diff").get_by_text("No differences between these versions.").wait_for()
    assert page.locator("#versions tbody tr").count() == 2
    assert re.search(r"status: VARCHAR", page.locator("#versions").inner_text())
    shot(page, "dataset-field-descriptions")
