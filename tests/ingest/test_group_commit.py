"""Concurrent single-event accepts share commits, and each is answered only once it is stored."""

from __future__ import annotations

import base64
import json
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis

from lineage_app.ingest.group_commit import PUBLISH_GATHER_SECONDS
from lineage_app.ingest.models import LineageEvent
from tests.conftest import wait_until
from tests.events import new_run_id, run_event

pytestmark = pytest.mark.django_db(transaction=True)


def _post(url: str, token: str, event: dict) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"{url}/api/v1/lineage",
        data=json.dumps(event).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, json.loads(response.read())


def test_concurrent_posts_are_each_stored_once_and_answered_after_commit(live_server, ingest_token):  # type: ignore[no-untyped-def]
    events = [run_event("START", run_id=new_run_id()) for _ in range(40)]
    posts = events + events[:10]  # ten of them twice, racing their first copy
    with ThreadPoolExecutor(12) as pool:
        answers = list(pool.map(lambda e: _post(live_server.url, ingest_token, e), posts))
    accepted = [body for status, body in answers if status == 201]
    duplicates = [body for status, body in answers if status == 200]
    assert len(accepted) == 40 and len(duplicates) == 10
    assert all(body["status"] == "duplicate" for body in duplicates)
    stored = set(LineageEvent.objects.values_list("id", flat=True))
    assert stored == {body["id"] for body in accepted}
    assert {body["id"] for body in duplicates} <= stored


def _published_event_ids(broker_url: str) -> list[list[int]]:
    """The event ids of each `apply_events` message waiting in the broker's default queue."""
    messages = redis.Redis.from_url(broker_url).lrange("celery", 0, -1)
    return [json.loads(base64.b64decode(json.loads(m)["body"]))[0][0] for m in messages]


def test_one_message_tells_the_workers_about_many_commits(live_server, ingest_token, broker):  # type: ignore[no-untyped-def]
    time.sleep(3 * PUBLISH_GATHER_SECONDS)  # messages of earlier tests' commits have gone out
    redis.Redis.from_url(broker.url).delete("celery")  # and nobody consumed them
    events = [run_event("START", run_id=new_run_id()) for _ in range(60)]
    with ThreadPoolExecutor(12) as pool:
        answers = list(pool.map(lambda e: _post(live_server.url, ingest_token, e), events))
    accepted = {body["id"] for status, body in answers if status == 201}
    assert len(accepted) == 60
    wait_until(
        lambda: sum(map(len, _published_event_ids(broker.url))) >= 60,
        timeout=10,
        what="every accepted event to be published",
    )
    messages = _published_event_ids(broker.url)
    published = [event_id for ids in messages for event_id in ids]
    assert sorted(published) == sorted(accepted)  # each event published, once
    assert len(messages) < 60 / 4  # commits and messages are shared, not one per event
