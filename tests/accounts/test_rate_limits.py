"""Per-token API rate limits: the scope's or the token's own, on the ingest and read endpoints alike, answered
past the limit with 429, `Retry-After` and the usual JSON error; counted in Redis, so every process shares them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.test import APIClient

from lineage_app.accounts import throttling
from lineage_app.accounts.models import ApiToken
from lineage_app.accounts.roles import ADMIN, role_grant
from lineage_app.accounts.services import token_authenticate, token_create
from lineage_app.ingest.models import LineageEvent
from tests.conftest import ROOT, PrivateRedis, database_url, free_port, graph_env, wait_until
from tests.events import new_run_id, run_event
from tests.observability.scrape import samples_of, value

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_counts(broker: PrivateRedis) -> Iterator[None]:
    """Each test starts with no request counted and Redis answering."""
    client = redis.Redis.from_url(broker.url)
    for key in client.scan_iter(f"{throttling.KEY_PREFIX}:*"):
        client.delete(key)
    throttling._unavailable_until = 0.0
    yield
    throttling._unavailable_until = 0.0


def client_for(token: str, **defaults: Any) -> APIClient:
    client = APIClient(**defaults)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def token(scope: str, rate_limit: str | None = None, name: str = "t") -> str:
    return token_create(name=name, scope=scope, rate_limit=rate_limit)[1]


def post_event(client: APIClient) -> Any:
    event = run_event("START", run_id=new_run_id())
    return client.post("/api/v1/lineage", data=json.dumps(event), content_type="application/json")


def post_batch(client: APIClient) -> Any:
    events = [run_event("START", run_id=new_run_id())]
    return client.post("/api/v1/lineage/batch", data=json.dumps(events), content_type="application/json")


def assert_throttled(answer: Any, *, limit: str, at_most: int) -> None:
    assert answer.status_code == 429, answer.content
    assert 1 <= int(answer["Retry-After"]) <= at_most
    body = answer.json()
    assert set(body) == {"error", "message"} and body["error"] == "throttled"
    assert f"this token's rate limit ({limit}) is used up." in body["message"]
    assert f"Expected available in {answer['Retry-After']} second" in body["message"]


def test_an_ingest_token_past_its_limit_is_refused_on_both_ingest_endpoints_and_nothing_is_stored() -> None:
    client = client_for(token("ingest", "3/minute"))
    assert post_event(client).status_code == 201
    assert post_batch(client).status_code == 200
    assert post_event(client).status_code == 201
    stored = LineageEvent.objects.count()
    assert_throttled(post_event(client), limit="3 per 1 minute", at_most=60)
    assert_throttled(post_batch(client), limit="3 per 1 minute", at_most=60)
    assert LineageEvent.objects.count() == stored


def test_a_read_token_past_its_limit_is_refused_on_the_read_api() -> None:
    client = client_for(token("read", "2/minute"))
    assert client.get("/api/v1/me").status_code == 200
    assert client.get("/api/v1/facet-warnings").status_code == 200
    assert_throttled(client.get("/api/v1/namespaces"), limit="2 per 1 minute", at_most=60)
    assert_throttled(client.get("/api/v1/me"), limit="2 per 1 minute", at_most=60)


def test_a_token_without_a_limit_of_its_own_has_its_scope_s(settings: Any) -> None:
    settings.API_RATE_LIMITS = {"ingest": "2/minute", "read": "unlimited"}
    ingest = client_for(token("ingest"))
    assert [post_event(ingest).status_code for _ in range(3)] == [201, 201, 429]
    reader = client_for(token("read"))
    assert {reader.get("/api/v1/me").status_code for _ in range(20)} == {200}


def test_a_token_s_own_limit_overrides_its_scope_s_either_way(settings: Any) -> None:
    settings.API_RATE_LIMITS = {"ingest": "2/minute", "read": "2/minute"}
    generous = client_for(token("ingest", "unlimited"))
    assert {post_event(generous).status_code for _ in range(6)} == {201}
    stricter = client_for(token("read", "1/minute"))
    assert [stricter.get("/api/v1/me").status_code for _ in range(2)] == [200, 429]


def test_each_token_has_a_count_of_its_own() -> None:
    first, second = client_for(token("read", "1/minute", "first")), client_for(token("read", "1/minute", "second"))
    assert first.get("/api/v1/me").status_code == 200
    assert first.get("/api/v1/me").status_code == 429
    assert second.get("/api/v1/me").status_code == 200


def test_a_refused_request_is_not_counted_and_after_retry_after_the_token_is_served_again() -> None:
    client = client_for(token("read", "2/second"))
    assert [client.get("/api/v1/me").status_code for _ in range(2)] == [200, 200]
    refused = [client.get("/api/v1/me") for _ in range(5)]
    assert {answer.status_code for answer in refused} == {429}
    time.sleep(int(refused[-1]["Retry-After"]))
    assert client.get("/api/v1/me").status_code == 200


def test_a_changed_limit_applies_at_once(settings: Any) -> None:
    plaintext = token("read", "1/minute")
    client = client_for(plaintext)
    assert [client.get("/api/v1/me").status_code for _ in range(2)] == [200, 429]
    row = ApiToken.objects.get()
    row.rate_limit = "5/minute"
    row.save()  # as the admin saves it: this process forgets the cached token at once
    assert client.get("/api/v1/me").status_code == 200


def test_logged_in_users_and_anonymous_callers_are_not_rate_limited(settings: Any) -> None:
    settings.API_RATE_LIMITS = {"ingest": "1/minute", "read": "1/minute"}
    browser = Client()
    browser.force_login(get_user_model().objects.create_user(username="ana", password="x" * 12))
    assert {browser.get("/api/v1/me").status_code for _ in range(5)} == {200}
    assert {Client().get("/api/v1/me").status_code for _ in range(5)} == {401}


def test_throttled_requests_are_counted_in_the_metrics_and_named_in_the_request_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def scrape() -> dict[Any, float]:
        return samples_of(Client().get("/metrics").content.decode())

    client = client_for(token("ingest", "1/minute"))
    before = scrape()
    caplog.set_level("INFO")
    statuses = [post_event(client).status_code for _ in range(3)]
    assert statuses == [201, 429, 429]
    after = scrape()
    refused = "tributary_api_throttled_total"
    assert value(after, refused, scope="ingest") - value(before, refused, scope="ingest") == 2
    lines = [r for r in caplog.records if r.name == "lineage_app.observability.middleware" and "429" in r.getMessage()]
    assert len(lines) == 2
    assert lines[0].fields["rate_limit"] == "1 per 1 minute" and 1 <= lines[0].fields["retry_after"] <= 60  # type: ignore[attr-defined]


def test_with_redis_down_requests_go_through_uncounted_and_the_limit_returns_with_redis(
    settings: Any, broker: PrivateRedis
) -> None:
    client = client_for(token("ingest", "1/minute"))
    unavailable = "tributary_rate_limit_unavailable_total"
    before = value(samples_of(Client().get("/metrics").content.decode()), unavailable)
    broker.stop()
    try:
        started = time.monotonic()
        assert [post_event(client).status_code for _ in range(3)] == [201, 201, 201]
        assert time.monotonic() - started < 5, "a dead Redis does not slow accepting down"
    finally:
        broker.start()
    after = value(samples_of(Client().get("/metrics").content.decode()), unavailable)
    assert after - before == 1, "asked once, then left alone for a while"
    throttling._unavailable_until = 0.0  # the pause is over
    assert [post_event(client).status_code for _ in range(2)] == [201, 429]


def test_tokens_are_created_with_a_limit_of_their_own_and_a_malformed_one_is_refused() -> None:
    out = StringIO()
    call_command("create_token", "--scope", "ingest", "--rate-limit", "600/minute", stdout=out)
    created = token_authenticate(plaintext=out.getvalue().strip())
    assert created is not None and created.rate_limit == "600/minute"
    for wrong in ("600 a minute", "0/minute", "-"):
        with pytest.raises(CommandError):
            call_command("create_token", "--scope", "ingest", "--rate-limit", wrong, stdout=StringIO())
    assert ApiToken.objects.count() == 1


def test_an_admin_sets_a_token_s_limit_in_the_admin_and_empty_means_its_scope_s() -> None:
    admin_user = get_user_model().objects.create_user(username="boss", password="x" * 12)
    role_grant(user=admin_user, role=ADMIN)
    admin = Client()
    admin.force_login(admin_user)
    added = admin.post("/admin/accounts/apitoken/add/", {"name": "relay", "scope": "ingest", "rate_limit": "50/second"})
    assert added.status_code == 302
    row = ApiToken.objects.get()
    assert row.rate_limit == "50/second"
    change = f"/admin/accounts/apitoken/{row.pk}/change/"
    refused = admin.post(change, {"name": "relay", "scope": "ingest", "rate_limit": "fifty"})
    assert refused.status_code == 200 and b"expected a rate such as" in refused.content
    assert admin.post(change, {"name": "relay", "scope": "ingest", "rate_limit": ""}).status_code == 302
    row.refresh_from_db()
    assert row.rate_limit is None


def test_the_settings_refuse_a_malformed_scope_limit() -> None:
    code = "import django; django.setup()"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "lineage_app.settings", "API_RATE_LIMIT_READ": "lots"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "API_RATE_LIMIT_READ: expected a rate such as" in done.stderr


def _get(url: str, token: str) -> int:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=20) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.mark.django_db(transaction=True)
def test_every_process_counts_against_the_same_limit(tmp_path: Path) -> None:
    """This test process and two gunicorn workers share one count per token, kept in Redis."""
    plaintext = token("read", "6/minute")
    here = client_for(plaintext)
    assert [here.get("/api/v1/me").status_code for _ in range(3)] == [200, 200, 200]

    port = free_port()
    env = {
        "PATH": os.environ["PATH"],
        "DATABASE_URL": database_url(),
        "REDIS_URL": settings.REDIS_URL,
        **graph_env(),
        "TRIBUTARY_VAR_DIR": str(tmp_path),
        "WEB_CONCURRENCY": "2",
        "WEB_THREADS": "2",
    }
    argv = [sys.executable, "-m", "gunicorn", "-c", "python:lineage_app.gunicorn_conf", "--bind", f"127.0.0.1:{port}"]
    with (tmp_path / "web.log").open("wb") as log:
        web = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=log)
    try:
        url = f"http://127.0.0.1:{port}/api/v1/me"

        def answers() -> bool:
            try:
                urllib.request.urlopen(url, timeout=2)
            except urllib.error.HTTPError as exc:
                return exc.code == 401
            except OSError:
                return False
            return False

        wait_until(answers, timeout=60, what="gunicorn")
        with ThreadPoolExecutor(6) as pool:
            statuses = Counter(pool.map(lambda _: _get(url, plaintext), range(12)))
    finally:
        web.terminate()
        web.wait(timeout=30)
    assert statuses == {200: 3, 429: 9}, (tmp_path / "web.log").read_text()[-2000:]
