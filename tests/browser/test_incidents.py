"""The Incidents pages in a real browser: the list, and an incident with its blast radius, timeline and deliveries;
acknowledging it from the page."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from lineage_app.alerts.models import Incident
from tests.alerts.scenario import history, routed, run
from tests.apply import accept_and_apply
from tests.browser.conftest import PageWatch, shot
from tests.events import T0

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def incident(graph: Any) -> Incident:
    accept_and_apply(*history())
    routed("team:data-quality", "team:finance-analytics")
    accept_and_apply(*run("validate_orders", fail=True, at=T0))
    accept_and_apply(*run("revenue", fail=True, at=T0 + timedelta(minutes=5)))
    return Incident.objects.get()


def test_the_incidents_page_lists_it_and_its_page_shows_who_was_told(
    logged_in: Any, incident: Incident, live_server: Any, watch: PageWatch
) -> None:
    page = logged_in
    page.goto(f"{live_server.url}/incidents?state=open")
    row = page.locator(f"#incidents tr[data-incident='{incident.pk}']")
    row.wait_for()
    assert "shop/validate_orders failed" in row.inner_text()
    assert "team:data-quality, team:finance-analytics" in row.inner_text()
    shot(page, "incidents")

    row.locator("a").first.click()
    page.locator("#incident-timeline").wait_for()
    kinds = page.locator("#incident-timeline li").evaluate_all("items => items.map(i => i.dataset.kind)")
    assert kinds == ["opened", "notified", "attached"]
    assert page.locator("#incident-owners").inner_text() == "team:data-quality, team:finance-analytics"
    assert page.locator("#incident-deliveries tr[data-delivery-state='pending']").count() == 2
    shot(page, "incident")

    page.locator("#acknowledge").click()
    page.locator(".incident [data-incident-state='acknowledged']").wait_for()
    assert page.locator("#acknowledge").count() == 0
    assert not watch.dialogs and not watch.errors
