"""The Destinations page (admins): destinations listed without their secrets, a test message that reaches a
real signed-webhook receiver, a bad URL refused naming the field, dead letters retried. The Alerts page: admins
switch and scope rules and route owners to destinations; every user subscribes (also from a dataset's page)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from lineage_app.accounts.roles import ADMIN, role_grant
from lineage_app.alerts.models import Route, Rule, Subscription
from lineage_app.notify.models import Delivery, Destination
from lineage_app.ownership.models import Owner
from tests.alerts.scenario import NS, history
from tests.apply import accept_and_apply
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


def test_an_admin_switches_and_scopes_rules_and_routes_owners_with_a_clear_error_for_an_unknown_owner(
    page: Any, live_server: Any, user: Any, logged_in: Any, watch: Any
) -> None:
    role_grant(user=user, role=ADMIN)
    Owner.objects.create(name="team:finance-analytics")
    Destination.objects.create(name="finance hook", kind="webhook", url="http://127.0.0.1:9/hook", secret=SECRET)
    page.goto(f"{live_server.url}/")
    page.click("nav >> text=Alerts")
    page.wait_for_url(re.compile(r"/alerts$"))

    failed = page.locator("tr[data-rule='run_failed']")
    failed.locator("input[name=enabled]").uncheck()
    failed.locator("[data-saved='enabled']").wait_for()
    assert Rule.objects.get(kind="run_failed").enabled is False
    failed.locator("input[name=namespaces]").fill("shop, file:///lake")
    failed.locator("input[name=owners]").fill("team:nobody")
    failed.locator("button.rule-save").click()
    failed.locator(".message.error").wait_for()
    assert "(owners)" in failed.locator(".message.error").inner_text()
    failed.locator("input[name=owners]").fill("team:finance-analytics")
    failed.locator("button.rule-save").click()
    failed.locator("[data-saved='scope']").wait_for()
    rule = Rule.objects.get(kind="run_failed")
    assert (rule.namespaces, rule.owners) == (["file:///lake", "shop"], ["team:finance-analytics"])

    page.fill("#route-form input[name=owner]", "team:typo")
    page.click("#route-form button[type=submit]")
    page.wait_for_selector("#route-form .message.error")
    problem = page.inner_text("#route-form .message.error")
    assert "team:typo" in problem and "(owner)" in problem
    page.fill("#route-form input[name=owner]", "team:finance-analytics")
    page.click("#route-form button[type=submit]")
    route = page.locator("tr[data-route='team:finance-analytics -> finance hook']")
    route.wait_for()
    assert Route.objects.get().owner.name == "team:finance-analytics"
    shot(page, "alerts-admin")
    route.locator("button.route-remove").click()
    page.wait_for_selector("#routes >> text=No routes yet")
    assert not Route.objects.exists()
    assert watch.errors == [] and watch.dialogs == []


def test_a_user_subscribes_from_dataset_and_job_pages_sees_it_unrouted_and_unsubscribes_on_the_alerts_page(
    page: Any, live_server: Any, graph: Any, logged_in: Any, watch: Any
) -> None:
    accept_and_apply(*history())
    page.goto(f"{live_server.url}/dataset?nodeId=dataset:{NS}:silver/orders")
    page.click("#subscribe button[data-subscribed='false']")
    page.wait_for_selector("#subscribe button[data-subscribed='true']")
    shot(page, "dataset-subscribed")
    sub = Subscription.objects.get()
    assert (sub.subscriber.name, sub.target_type, sub.namespace, sub.name) == (
        "user:explorer",
        "dataset",
        NS,
        "silver/orders",
    )

    page.goto(f"{live_server.url}/alerts")
    row = page.locator(f"tr[data-subscription='dataset silver/orders in {NS}']")
    row.wait_for()
    assert "No route for user:explorer" in page.inner_text("#subscription-reach")
    assert page.locator("#rules input").count() == 0 and page.locator("#route-form").count() == 0
    page.select_option("#subscription-form select[name=targetType]", "job")
    page.fill("#subscription-form input[name=namespace]", "shop")
    page.click("#subscription-form button[type=submit]")
    page.wait_for_selector("#subscription-form .message.error")
    assert "(name)" in page.inner_text("#subscription-form .message.error")
    page.select_option("#subscription-form select[name=targetType]", "namespace")
    page.click("#subscription-form button[type=submit]")
    page.locator("tr[data-subscription='namespace shop']").wait_for()
    shot(page, "alerts")
    row.locator("button.subscription-remove").click()
    page.wait_for_selector(f"tr[data-subscription='dataset silver/orders in {NS}']", state="detached")
    assert list(Subscription.objects.values_list("target_type", "namespace")) == [("namespace", "shop")]

    page.goto(f"{live_server.url}/job?nodeId=job:shop:validate_orders")
    page.click("#subscribe button[data-subscribed='false']")
    page.wait_for_selector("#subscribe button[data-subscribed='true']")
    assert Subscription.objects.filter(target_type="job", namespace="shop", name="validate_orders").exists()
    shot(page, "job-subscribed")
    page.click("#subscribe button[data-subscribed='true']")
    page.wait_for_selector("#subscribe button[data-subscribed='false']")
    assert not Subscription.objects.filter(target_type="job").exists()
    assert watch.errors == [] and watch.dialogs == []
