"""Sign-in lockout (django-axes): failures per username and per address lock, even the right password is then
refused with a message, an admin or a command unlocks, and every failure is a JSON log line and a metric."""

from __future__ import annotations

import json
import logging
import time
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from lineage_app.accounts.roles import ADMIN, EDITOR, role_grant
from lineage_app.observability.logs import JsonFormatter
from tests.observability.scrape import samples_of, value

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"
LOCKED = "signing in is locked"
FAILURES = "tributary_login_failures_total"
LOCKOUTS = "tributary_login_lockouts_total"


@pytest.fixture(autouse=True)
def _fast_hashing(settings: Any) -> None:
    """Each wrong password is hashed like a right one: a fast hasher keeps twenty of them quick."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def user(name: str = "ana") -> AbstractUser:
    return get_user_model().objects.create_user(username=name, password=PASSWORD)


def sign_in(client: Client, username: str, password: str, *, address: str = "10.0.0.1", path: str = "/login/") -> Any:
    return client.post(path, {"username": username, "password": password}, REMOTE_ADDR=address)


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def metrics() -> dict[Any, float]:
    response = Client().get("/metrics")
    assert response.status_code == 200
    return samples_of(response.content.decode())


def test_five_wrong_passwords_lock_the_account_and_then_even_the_right_one_is_refused_with_a_message() -> None:
    user("ana")
    client = Client()
    for _ in range(4):
        answer = sign_in(client, "ana", "wrong")
        assert answer.status_code == 200 and b"did not match" in answer.content
    fifth = sign_in(client, "ana", "wrong")
    assert fifth.status_code == 429
    assert LOCKED in fifth.content.decode() and "15 minutes after the last failed attempt" in fifth.content.decode()
    assert b'name="username"' in fifth.content, "the page still offers the form"

    right = sign_in(client, "ana", PASSWORD)
    assert right.status_code == 429 and LOCKED in right.content.decode()
    assert not signed_in(client)
    assert AccessAttempt.objects.get(username="ana").failures_since_start == 5, "refused tries are not failures"


def test_the_username_is_locked_from_every_address() -> None:
    user("ana")
    for n in range(5):
        sign_in(Client(), "ana", "wrong", address=f"10.0.1.{n}")
    answer = sign_in(Client(), "ana", PASSWORD, address="10.0.9.9")
    assert answer.status_code == 429 and LOCKED in answer.content.decode()


def test_an_address_is_locked_for_every_username_while_other_addresses_sign_in() -> None:
    user("ana")
    for n in range(5):
        sign_in(Client(), f"guess{n}", "wrong", address="10.0.2.1")
    from_there, elsewhere = Client(), Client()
    assert sign_in(from_there, "ana", PASSWORD, address="10.0.2.1").status_code == 429
    assert not signed_in(from_there)
    assert sign_in(elsewhere, "ana", PASSWORD, address="10.0.2.2").status_code == 302
    assert signed_in(elsewhere)


def test_the_admin_login_is_locked_alike() -> None:
    admin = user("root")
    admin.is_superuser = admin.is_staff = True
    admin.save()
    client = Client()
    for _ in range(5):
        sign_in(client, "root", "wrong", path="/admin/login/")
    answer = sign_in(client, "root", PASSWORD, path="/admin/login/")
    assert answer.status_code == 429 and LOCKED in answer.content.decode()


def test_the_lockout_lifts_once_the_cool_off_has_passed(settings: Any) -> None:
    settings.AXES_COOLOFF_TIME = timedelta(seconds=1)
    user("ana")
    client = Client()
    for _ in range(5):
        sign_in(client, "ana", "wrong")
    assert sign_in(client, "ana", PASSWORD).status_code == 429
    time.sleep(1.2)
    assert sign_in(client, "ana", PASSWORD).status_code == 302
    assert signed_in(client)


def lock(username: str, address: str) -> None:
    for _ in range(5):
        sign_in(Client(), username, "wrong", address=address)
    assert sign_in(Client(), username, PASSWORD, address=address).status_code == 429


def test_an_admin_unlocks_by_deleting_the_attempt_in_the_admin_and_an_editor_cannot() -> None:
    user("ana")
    lock("ana", "10.0.3.1")
    editor, admin = Client(), Client()
    editor.force_login(user("ed"))
    role_grant(user=get_user_model().objects.get(username="ed"), role=EDITOR)
    admin_user = user("boss")
    role_grant(user=admin_user, role=ADMIN)
    admin.force_login(admin_user)
    assert editor.get("/admin/axes/accessattempt/").status_code == 403

    listing = admin.get("/admin/axes/accessattempt/?locked_out=yes")
    assert listing.status_code == 200 and b"ana" in listing.content and b"Locked Out" in listing.content
    attempt = AccessAttempt.objects.get(username="ana")
    answer = admin.post(
        "/admin/axes/accessattempt/",
        {"action": "delete_selected", "_selected_action": [attempt.pk], "post": "yes"},
    )
    assert answer.status_code == 302
    assert not AccessAttempt.objects.exists()
    client = Client()
    assert sign_in(client, "ana", PASSWORD, address="10.0.3.1").status_code == 302 and signed_in(client)


@pytest.mark.parametrize(
    ("command", "args"),
    [("axes_reset_username", ["ana"]), ("axes_reset_ip", ["10.0.4.1"]), ("axes_reset", [])],
)
def test_the_axes_reset_commands_unlock(command: str, args: list[str]) -> None:
    user("ana")
    lock("ana", "10.0.4.1")
    call_command(command, *args, stdout=StringIO())
    client = Client()
    assert sign_in(client, "ana", PASSWORD, address="10.0.4.1").status_code == 302 and signed_in(client)


def test_every_failure_and_each_lockout_is_a_json_log_line_and_a_metric(caplog: pytest.LogCaptureFixture) -> None:
    user("ana")
    before = metrics()
    caplog.set_level(logging.INFO)
    for _ in range(6):  # five failures lock; the sixth try is refused by the lockout
        sign_in(Client(), "ana", "wrong", address="10.0.5.1")
    after = metrics()
    assert (
        value(after, FAILURES, reason="invalid_credentials") - value(before, FAILURES, reason="invalid_credentials")
        == 5
    )
    assert value(after, FAILURES, reason="locked_out") - value(before, FAILURES, reason="locked_out") == 1
    assert value(after, LOCKOUTS) - value(before, LOCKOUTS) == 1

    lines = [json.loads(JsonFormatter().format(r)) for r in caplog.records if r.name == "lineage_app.accounts.lockout"]
    failed = [line for line in lines if line.get("event") == "login_failed"]
    assert [line["reason"] for line in failed] == ["invalid_credentials"] * 5 + ["locked_out"]
    assert all(
        (line["level"], line["username"], line["client_ip"], line["path"]) == ("WARNING", "ana", "10.0.5.1", "/login/")
        for line in failed
    )
    (locked,) = [line for line in lines if line.get("event") == "login_lockout"]
    assert (locked["username"], locked["client_ip"], locked["failure_limit"], locked["lockout_minutes"]) == (
        "ana",
        "10.0.5.1",
        5,
        15,
    )
    assert "password" not in json.dumps(lines).replace('"path"', ""), "no password is logged"


def test_behind_a_trusted_proxy_each_client_is_told_apart_by_the_address_the_proxy_saw(settings: Any) -> None:
    settings.TRUSTED_PROXY_COUNT = 1
    user("ana")
    proxy = "10.0.6.1"
    for n in range(5):  # a client who also sends a forged X-Forwarded-For of its own
        Client().post(
            "/login/",
            {"username": f"guess{n}", "password": "wrong"},
            REMOTE_ADDR=proxy,
            HTTP_X_FORWARDED_FOR="10.0.6.200, 203.0.113.7",
        )
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"203.0.113.7"}
    neighbour = Client()
    answer = neighbour.post(
        "/login/", {"username": "ana", "password": PASSWORD}, REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="203.0.113.8"
    )
    assert answer.status_code == 302 and signed_in(neighbour), "another client behind the same proxy is not locked"
    attacker = Client()
    answer = attacker.post(
        "/login/", {"username": "ana", "password": PASSWORD}, REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="203.0.113.7"
    )
    assert answer.status_code == 429


def test_bearer_tokens_are_not_sign_ins_and_work_from_a_locked_address(read_token: str) -> None:
    user("ana")
    before = metrics()
    bad = APIClient(REMOTE_ADDR="10.0.7.1")
    bad.credentials(HTTP_AUTHORIZATION="Bearer trb_000000000000_not-a-token")
    for _ in range(10):
        assert bad.get("/api/v1/me").status_code == 401
    assert not AccessAttempt.objects.exists()
    assert value(metrics(), FAILURES, reason="invalid_credentials") == value(
        before, FAILURES, reason="invalid_credentials"
    )

    lock("ana", "127.0.0.1")  # the test client's own address
    good = APIClient()
    good.credentials(HTTP_AUTHORIZATION=f"Bearer {read_token}")
    assert good.get("/api/v1/me").json()["username"] == "token:test read"
