"""The Destinations page (admins): destinations listed without their secrets, a test message that reaches a
real signed-webhook receiver, a bad URL refused naming the field, dead letters retried."""

from __future__ import annotations

import re
from typing import Any

import pytest

from lineage_app.accounts.roles import ADMIN, role_grant
from lineage_app.notify.models import Delivery, Destination
from tests.browser.conftest import shot
from tests.notify.receivers import WebhookReceiver
from tests.notify.test_outbox import MESSAGE

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "whsec-browser-never-shown"


def test_an_admin_manages_destinations_sends_a_test_message_and_retries_a_dead_letter(
    page: Any, live_server: Any, user: Any, logged_in: Any, watch: Any
) -> None:
    receiver = WebhookReceiver(secret=SECRET)
    try:
        role_grant(user=user, role=ADMIN)
        hook = Destination.objects.create(name="on-call hook", kind="webhook", url=receiver.url, secret=SECRET)
        Destination.objects.create(name="finance mailbox", kind="email", email="finance@example.com")
        Delivery.objects.create(
            destination=hook,
            idempotency_key="incident:7:opened:team:finance-analytics",
            message=MESSAGE.to_json(),
            state="dead",
            attempts=8,
            last_error="HTTP 503: Service Unavailable",
            next_attempt_at="2026-01-01T00:00:00Z",
        )
        page.goto(f"{live_server.url}/")
        page.click("nav >> text=Destinations")
        page.wait_for_url(re.compile(r"/destinations$"))
        row = page.locator("tr[data-destination='on-call hook']")
        row.wait_for()
        assert "✔ secret set" in row.inner_text()
        row.locator("button.destination-test").click()
        page.wait_for_selector("tr[data-destination='on-call hook'] [data-state='sent']")
        assert len(receiver.received) == 1 and receiver.received[0].signature_ok

        page.click("#destination-add")
        page.fill("#destination-form input[name=name]", "data-quality slack")
        page.select_option("#destination-form select[name=kind]", "slack")
        page.fill("#destination-form input[name=address]", "hooks.slack.com/services/T0/B0/KEY")
        page.click("#destination-form button[type=submit]")
        page.wait_for_selector("#destination-form .message.error")
        assert "(url)" in page.inner_text("#destination-form .message.error")
        page.fill("#destination-form input[name=address]", "https://hooks.slack.com/services/T0/B0/KEY")
        page.click("#destination-form button[type=submit]")
        slack = page.locator("tr[data-destination='data-quality slack']")
        slack.wait_for()
        assert "https://hooks.slack.com/…" in slack.inner_text()

        dead = page.locator("tr[data-delivery='incident:7:opened:team:finance-analytics']")
        dead.wait_for()
        assert "HTTP 503" in dead.inner_text()
        shot(page, "destinations", readme="destinations")
        content = page.content()
        assert SECRET not in content and "B0/KEY" not in content
        dead.locator("button.delivery-retry").click()
        page.wait_for_selector("#no-dead-letters")
        assert Delivery.objects.get(idempotency_key__startswith="incident:7:").state == "pending"
        assert watch.errors == [] and watch.dialogs == []
    finally:
        receiver.stop()
