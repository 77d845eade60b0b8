"""Concurrent single-event accepts share commits, and each is answered only once it is stored."""

from __future__ import annotations

import json
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from lineage_app.ingest.models import LineageEvent
from tests.events import new_run_id, run_event

pytestmark = pytest.mark.django_db(transaction=True)


def _post(url: str, token: str, event: dict) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"{url}/api/v1/lineage", data=json.dumps(event).encode(), method="POST",
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
