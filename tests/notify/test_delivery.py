"""Delivery through real receivers: a signed webhook, Slack and Teams payloads, SMTP; retries, dead letters."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import transaction

from lineage_app.notify import services
from lineage_app.notify.models import Delivery, Destination
from lineage_app.notify.signing import IDEMPOTENCY_HEADER, SIGNATURE_HEADER
from lineage_app.notify.transports import message_id
from tests.notify.receivers import SmtpServer, WebhookReceiver
from tests.notify.test_outbox import MESSAGE

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    server = WebhookReceiver(secret="whsec-test")
    yield server
    server.stop()


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    server = SmtpServer()
    yield server
    server.stop()


def _due_now(delivery: Delivery) -> None:
    """Skip the back-off wait (the test would otherwise sleep through it)."""
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=delivery.created_at)


def test_a_generic_webhook_gets_the_event_signed_with_its_secret_and_the_idempotency_key(receiver) -> None:  # type: ignore[no-untyped-def]
    hook = Destination.objects.create(name="hook", kind="webhook", url=receiver.url, secret="whsec-test")
    delivery = services.enqueue(destination=hook, message=MESSAGE, idempotency_key="incident:7:opened")
    assert services.delivery_attempt(delivery_id=delivery.pk) is not None
    [got] = receiver.received
    assert got.signature_ok is True
    assert got.headers[SIGNATURE_HEADER].startswith("t=")
    assert got.headers[IDEMPOTENCY_HEADER] == "incident:7:opened"
    assert json.loads(got.body) == MESSAGE.event
    delivery.refresh_from_db()
    assert (delivery.state, delivery.attempts, delivery.last_error) == ("sent", 1, "")
    assert delivery.sent_at is not None


def test_a_webhook_signed_with_another_secret_is_refused_by_the_receiver_and_retried(receiver) -> None:  # type: ignore[no-untyped-def]
    hook = Destination.objects.create(name="hook", kind="webhook", url=receiver.url, secret="not-the-receivers")
    delivery = services.enqueue(destination=hook, message=MESSAGE, idempotency_key="k")
    services.delivery_attempt(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    assert receiver.received == []
    assert delivery.state == "pending"
    assert "HTTP 401" in delivery.last_error


def test_slack_gets_blocks_and_teams_an_adaptive_card() -> None:
    plain = WebhookReceiver()
    try:
        slack = Destination.objects.create(name="slack", kind="slack", url=plain.url + "/services/T0/B0/XYZ")
        teams = Destination.objects.create(name="teams", kind="teams", url=plain.url + "/webhookb2/abc")
        for destination in (slack, teams):
            delivery = services.enqueue(destination=destination, message=MESSAGE, idempotency_key="incident:1")
            services.delivery_attempt(delivery_id=delivery.pk)
        slack_body, teams_body = (json.loads(r.body) for r in plain.received)
    finally:
        plain.stop()
    assert slack_body["text"].startswith("validate_orders failed")
    assert slack_body["blocks"][0]["type"] == "header"
    assert {"type": "mrkdwn", "text": "*Job*\nfinance.validate_orders"} in slack_body["blocks"][2]["fields"]
    assert "<http://127.0.0.1:8000/incidents/1|Incident>" in slack_body["blocks"][-1]["elements"][0]["text"]
    [attachment] = teams_body["attachments"]
    assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    card = attachment["content"]
    assert card["type"] == "AdaptiveCard"
    assert {"title": "Cause", "value": "data quality"} in card["body"][2]["facts"]
    assert card["actions"] == [
        {"type": "Action.OpenUrl", "title": "Incident", "url": "http://127.0.0.1:8000/incidents/1"}
    ]
    assert all(SIGNATURE_HEADER not in r.headers for r in plain.received)  # only generic webhooks are signed


def test_an_email_reaches_a_real_smtp_server_with_text_html_and_a_stable_message_id(smtp, settings) -> None:  # type: ignore[no-untyped-def]
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", smtp.port
    mailbox = Destination.objects.create(name="finance", kind="email", email="finance@example.com")
    delivery = services.enqueue(destination=mailbox, message=MESSAGE, idempotency_key="incident:3:opened")
    services.delivery_attempt(delivery_id=delivery.pk)
    [mail] = smtp.messages
    assert mail["To"] == "finance@example.com"
    assert mail["Subject"] == "[critical] validate_orders failed"
    assert mail["Message-ID"] == message_id(destination=mailbox, idempotency_key="incident:3:opened")
    parts = {
        part.get_content_type(): part.get_payload(decode=True).decode()
        for part in mail.walk()
        if not part.is_multipart()
    }
    assert "Job: finance.validate_orders" in parts["text/plain"]
    assert "  - dataset:warehouse:orders_daily" in parts["text/plain"]
    assert "<th align='left'>Cause</th><td>data quality</td>" in parts["text/html"]
    delivery.refresh_from_db()
    assert delivery.state == "sent"


def test_smtp_down_is_retried_with_backoff_then_dead_lettered_after_the_last_try(settings) -> None:  # type: ignore[no-untyped-def]
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", SmtpServer.unused_port()
    settings.NOTIFY_MAX_ATTEMPTS = 3
    mailbox = Destination.objects.create(name="finance", kind="email", email="finance@example.com")
    delivery = services.enqueue(destination=mailbox, message=MESSAGE, idempotency_key="k")
    waits = []
    for _ in range(3):
        services.delivery_attempt(delivery_id=delivery.pk)
        delivery.refresh_from_db()
        waits.append((delivery.next_attempt_at - delivery.created_at).total_seconds())
        _due_now(delivery)
    assert (delivery.state, delivery.attempts) == ("dead", 3)
    assert "ConnectionRefusedError" in delivery.last_error
    base = settings.NOTIFY_RETRY_BASE_SECONDS
    assert 0.8 * base <= waits[0] <= base and 1.6 * base <= waits[1] <= 2 * base  # doubling, with jitter
    assert services.delivery_attempt(delivery_id=delivery.pk) is None  # dead stays dead


def test_a_destination_down_then_up_gets_the_message_exactly_once(receiver) -> None:  # type: ignore[no-untyped-def]
    receiver.failures = 2
    hook = Destination.objects.create(name="hook", kind="webhook", url=receiver.url, secret="whsec-test")
    delivery = services.enqueue(destination=hook, message=MESSAGE, idempotency_key="incident:9:opened")
    for _ in range(5):
        services.delivery_attempt(delivery_id=delivery.pk)
        delivery.refresh_from_db()
        _due_now(delivery)
    assert receiver.refused == 2
    assert receiver.keys() == ["incident:9:opened"]
    assert (delivery.state, delivery.attempts) == ("sent", 3)
    assert "HTTP 503" in delivery.last_error or delivery.last_error == ""


def test_many_callers_racing_for_one_delivery_send_it_once(receiver) -> None:  # type: ignore[no-untyped-def]
    hook = Destination.objects.create(name="hook", kind="webhook", url=receiver.url, secret="whsec-test")
    delivery = services.enqueue(destination=hook, message=MESSAGE, idempotency_key="race")
    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(lambda _: services.delivery_attempt(delivery_id=delivery.pk), range(8)))
    assert sum(outcome is not None for outcome in outcomes) == 1
    assert receiver.keys() == ["race"]


def test_a_claim_left_by_a_dead_worker_is_handed_back_after_its_lease(receiver) -> None:  # type: ignore[no-untyped-def]
    hook = Destination.objects.create(name="hook", kind="webhook", url=receiver.url, secret="whsec-test")
    delivery = services.enqueue(destination=hook, message=MESSAGE, idempotency_key="lease")
    Delivery.objects.filter(pk=delivery.pk).update(state="sending", claimed_at=delivery.created_at, attempts=1)
    assert services.deliveries_release_lapsed(lease_seconds=3600) == 0  # still within its lease
    assert services.deliveries_release_lapsed(lease_seconds=0) == 1
    services.delivery_attempt(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    assert (delivery.state, delivery.attempts, receiver.keys()) == ("sent", 2, ["lease"])


def test_a_disabled_destination_s_delivery_fails_and_is_not_sent(receiver) -> None:  # type: ignore[no-untyped-def]
    hook = Destination.objects.create(name="hook", kind="webhook", url=receiver.url, enabled=False)
    delivery = services.enqueue(destination=hook, message=MESSAGE, idempotency_key="off")
    services.delivery_attempt(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    assert receiver.received == [] and "disabled" in delivery.last_error


def test_a_dead_letter_retried_goes_back_to_pending_with_fresh_tries(settings) -> None:  # type: ignore[no-untyped-def]
    hook = Destination.objects.create(name="hook", kind="webhook", url="http://127.0.0.1:9/")
    delivery = services.enqueue(destination=hook, message=MESSAGE, idempotency_key="dead")
    Delivery.objects.filter(pk=delivery.pk).update(state="dead", attempts=8, last_error="HTTP 500")
    with transaction.atomic():
        services.delivery_retry(delivery=delivery)
    assert (delivery.state, delivery.attempts) == ("pending", 0)


def test_dead_letters_and_tries_are_counted_in_metrics(client, settings) -> None:  # type: ignore[no-untyped-def]
    settings.NOTIFY_MAX_ATTEMPTS = 1
    hook = Destination.objects.create(name="hook", kind="webhook", url=f"http://127.0.0.1:{SmtpServer.unused_port()}/")
    delivery = services.enqueue(destination=hook, message=MESSAGE, idempotency_key="gone")
    services.delivery_attempt(delivery_id=delivery.pk)
    text = client.get("/metrics").content.decode()
    assert 'tributary_notify_deliveries{state="dead"} 1.0' in text
    assert 'tributary_notify_deliveries{state="pending"} 0.0' in text
    assert 'tributary_notify_delivery_attempts_total{kind="webhook",outcome="dead"}' in text


def test_a_message_that_cannot_be_rendered_counts_as_a_try_and_ends_dead_not_stuck(settings) -> None:  # type: ignore[no-untyped-def]
    settings.NOTIFY_MAX_ATTEMPTS = 1
    hook = Destination.objects.create(name="hook", kind="webhook", url="http://127.0.0.1:9/")
    delivery = services.enqueue(destination=hook, message=MESSAGE, idempotency_key="broken")
    Delivery.objects.filter(pk=delivery.pk).update(message={"summary": "no title"})  # as a bug would leave it
    services.delivery_attempt(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    assert (delivery.state, delivery.last_error) == ("dead", "internal error: KeyError")
