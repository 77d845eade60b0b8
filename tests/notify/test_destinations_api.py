"""`/api/v1/alerts/destinations` and `/api/v1/alerts/deliveries`: admins only, bad addresses are 400s
naming the field (or the rule), secrets are never answered, a test message reports how it went."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from rest_framework.test import APIClient

from lineage_app.accounts.services import token_create
from lineage_app.notify.models import Delivery, Destination
from tests.notify.receivers import WebhookReceiver
from tests.notify.test_outbox import MESSAGE

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "whsec-never-answered-3f9c"
SLACK_KEY = "B0SLACKPATHKEY"


class RecordingClient(APIClient):
    """An API client that keeps every answer's body, to scan them all for secrets."""

    bodies: list[bytes]

    def request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        response = super().request(*args, **kwargs)
        self.bodies.append(response.content)
        return response


def _client(scope: str) -> RecordingClient:
    client = RecordingClient()
    client.bodies = []
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_create(name=f'test {scope}', scope=scope)[1]}")
    return client


@pytest.fixture
def admin() -> RecordingClient:
    return _client("admin")


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    server = WebhookReceiver(secret=SECRET)
    yield server
    server.stop()


def _create(client: APIClient, **body):  # type: ignore[no-untyped-def]
    return client.post("/api/v1/alerts/destinations", body, format="json")


def test_an_admin_creates_a_signed_webhook_and_sends_it_a_test_message(admin, receiver) -> None:  # type: ignore[no-untyped-def]
    created = _create(admin, name="on-call hook", kind="webhook", url=receiver.url, secret=SECRET)
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["hasSecret"] is True and "secret" not in body
    tested = admin.post(f"/api/v1/alerts/destinations/{body['id']}/test")
    assert tested.status_code == 200
    assert tested.json()["state"] == "sent"
    assert tested.json()["attempts"] == 1
    [got] = receiver.received
    assert got.signature_ok is True and json.loads(got.body)["type"] == "test"


def test_a_test_message_to_a_destination_that_is_down_answers_pending_with_the_error(admin) -> None:  # type: ignore[no-untyped-def]
    down = WebhookReceiver()
    down.stop()
    created = _create(admin, name="down", kind="webhook", url=down.url).json()
    tested = admin.post(f"/api/v1/alerts/destinations/{created['id']}/test").json()
    assert tested["state"] == "pending" and "ConnectionError" in tested["lastError"]
    assert tested["nextAttemptAt"] is not None


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kind": "webhook", "url": "not a url"}, "url"),
        ({"kind": "webhook", "url": "ftp://example.com/x"}, "url"),
        ({"kind": "slack", "url": ""}, "url"),
        ({"kind": "teams", "url": "https://"}, "url"),
        ({"kind": "email", "email": "nobody-at-example.com"}, "email"),
        ({"kind": "email", "email": ""}, "email"),
        ({"kind": "email", "email": "a@example.com", "url": "https://example.com/"}, "url"),
        ({"kind": "pigeon", "url": "https://example.com/"}, "kind"),
        ({"kind": "webhook", "url": "https://example.com/", "name": ""}, "name"),
    ],
)
def test_a_malformed_destination_is_a_400_naming_the_field(admin, body, field) -> None:  # type: ignore[no-untyped-def]
    answer = _create(admin, **{"name": "bad", **body})
    assert answer.status_code == 400, answer.content
    assert answer.json()["path"] == field
    assert not Destination.objects.exists()


def test_private_addresses_are_allowed_by_default_and_denied_by_the_setting_naming_it(admin, settings) -> None:  # type: ignore[no-untyped-def]
    assert _create(admin, name="internal", kind="webhook", url="http://10.1.2.3/hook").status_code == 201
    settings.NOTIFY_DENY_PRIVATE_ADDRESSES = True
    for url in ("http://127.0.0.1:8080/hook", "http://[::1]/hook", "http://192.168.0.7/", "http://localhost/x"):
        answer = _create(admin, name=f"private {url}", kind="webhook", url=url)
        assert answer.status_code == 400, url
        assert answer.json()["path"] == "url"
        assert "NOTIFY_DENY_PRIVATE_ADDRESSES" in answer.json()["message"]
    assert _create(admin, name="public", kind="webhook", url="https://93.184.215.14/hook").status_code == 201


def test_a_taken_name_is_a_400_naming_it(admin) -> None:  # type: ignore[no-untyped-def]
    assert _create(admin, name="hook", kind="webhook", url="https://example.com/a").status_code == 201
    answer = _create(admin, name="hook", kind="webhook", url="https://example.com/b")
    assert (answer.status_code, answer.json()["path"]) == (400, "name")


def test_update_keeps_the_secret_unless_given_and_refuses_a_bad_url(admin) -> None:  # type: ignore[no-untyped-def]
    made = _create(admin, name="hook", kind="webhook", url="https://example.com/a", secret=SECRET).json()
    url = f"/api/v1/alerts/destinations/{made['id']}"
    renamed = admin.patch(url, {"name": "renamed", "enabled": False}, format="json")
    assert renamed.status_code == 200
    assert (renamed.json()["name"], renamed.json()["enabled"], renamed.json()["hasSecret"]) == ("renamed", False, True)
    assert Destination.objects.get().secret == SECRET
    assert admin.patch(url, {"url": "nope"}, format="json").json()["path"] == "url"
    assert admin.patch(url, {"secret": ""}, format="json").json()["hasSecret"] is False
    assert admin.delete(url).status_code == 204
    assert admin.get(url).status_code == 404


def test_readers_and_ingest_tokens_may_not_manage_destinations() -> None:
    for scope in ("read", "ingest"):
        client = _client(scope)
        assert client.get("/api/v1/alerts/destinations").status_code == 403
        assert _create(client, name="x", kind="webhook", url="https://example.com/").status_code == 403
        assert client.get("/api/v1/alerts/deliveries").status_code == 403
    assert APIClient().get("/api/v1/alerts/destinations").status_code in (401, 403)


def test_dead_letters_are_listed_and_retried(admin) -> None:  # type: ignore[no-untyped-def]
    hook = Destination.objects.create(name="hook", kind="webhook", url="https://example.com/x")
    dead = Delivery.objects.create(
        destination=hook,
        idempotency_key="incident:4:opened",
        message=MESSAGE.to_json(),
        state="dead",
        attempts=8,
        last_error="HTTP 500: boom",
        next_attempt_at="2026-01-01T00:00:00Z",
    )
    Delivery.objects.create(
        destination=hook,
        idempotency_key="incident:5:opened",
        message=MESSAGE.to_json(),
        state="sent",
        attempts=1,
        next_attempt_at="2026-01-01T00:00:00Z",
    )
    page = admin.get("/api/v1/alerts/deliveries", {"state": "dead"}).json()
    assert page["count"] == 1
    [row] = page["results"]
    assert (row["idempotencyKey"], row["attempts"], row["lastError"]) == ("incident:4:opened", 8, "HTTP 500: boom")
    assert row["destination"] == {"id": hook.pk, "name": "hook", "kind": "webhook"}
    assert admin.get("/api/v1/alerts/destinations").json()["results"][0]["deadDeliveries"] == 1
    assert admin.get("/api/v1/alerts/deliveries", {"state": "buried"}).json()["path"] == "state"
    retried = admin.post(f"/api/v1/alerts/deliveries/{dead.pk}/retry")
    assert (retried.status_code, retried.json()["state"], retried.json()["attempts"]) == (200, "pending", 0)
    assert admin.post(f"/api/v1/alerts/deliveries/{dead.pk}/retry").status_code == 409


def test_no_answer_ever_shows_a_secret_or_a_slack_webhook_s_key(admin, receiver) -> None:  # type: ignore[no-untyped-def]
    hook = _create(admin, name="hook", kind="webhook", url=receiver.url, secret=SECRET).json()
    slack = _create(admin, name="slack", kind="slack", url=f"{receiver.url}/services/T0/{SLACK_KEY}").json()
    mail = _create(admin, name="mail", kind="email", email="oncall@example.com", secret=SECRET).json()
    assert slack["url"] == f"http://127.0.0.1:{receiver.port}/…"
    for made in (hook, slack, mail):
        url = f"/api/v1/alerts/destinations/{made['id']}"
        admin.get(url)
        admin.patch(url, {"enabled": True}, format="json")
        admin.post(f"{url}/test")
    receiver.failures = 1
    admin.post(f"/api/v1/alerts/destinations/{slack['id']}/test")  # a failed try: its error is answered
    admin.get("/api/v1/alerts/destinations")
    admin.get("/api/v1/alerts/deliveries")
    admin.get("/api/v1/schema")
    for made in (hook, slack):  # the browsable API's pages too
        assert admin.get(f"/api/v1/alerts/destinations/{made['id']}", HTTP_ACCEPT="text/html").status_code == 200
    assert len(admin.bodies) >= 15
    for body in admin.bodies:
        assert SECRET.encode() not in body
        assert SLACK_KEY.encode() not in body


@pytest.mark.parametrize("raw_id", ["x", "2.5e-3", "null", "99999999999999999999", "424242"])
def test_an_id_naming_no_destination_or_delivery_is_a_json_404(admin, raw_id) -> None:  # type: ignore[no-untyped-def]
    for method, path in [
        ("get", f"/api/v1/alerts/destinations/{raw_id}"),
        ("patch", f"/api/v1/alerts/destinations/{raw_id}"),
        ("delete", f"/api/v1/alerts/destinations/{raw_id}"),
        ("post", f"/api/v1/alerts/destinations/{raw_id}/test"),
        ("post", f"/api/v1/alerts/deliveries/{raw_id}/retry"),
    ]:
        answer = getattr(admin, method)(path, {}, format="json")
        assert (answer.status_code, answer["Content-Type"], answer.json()["error"]) == (
            404,
            "application/json",
            "not_found",
        ), path
