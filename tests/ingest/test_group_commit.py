"""Concurrent single-event accepts share commits, each is answered only once it is stored, and
one message tells the workers about everything committed while the previous one was sent."""

from __future__ import annotations

import base64
import json
import threading
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis

from lineage_app.ingest.group_commit import PUBLISH_GATHER_SECONDS, GroupCommitter, Publisher
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import APPLY_EVENTS_TASK
from tests.conftest import wait_until
from tests.events import new_run_id, run_event


def _post(url: str, token: str, event: dict) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"{url}/api/v1/lineage",
        data=json.dumps(event).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, json.loads(response.read())


@pytest.mark.django_db(transaction=True)
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
    """The event ids of each `apply_events` message waiting in the broker's default queue (earlier tests may have
    left other tasks' messages there, some with no arguments). The queue is a Redis list per priority: `celery`,
    and `celery` plus a separator and the priority for the others (apply's is lower: `CELERY_TASK_ROUTES`)."""
    client = redis.Redis.from_url(broker_url)
    lists = [key for key in client.scan_iter(match=b"celery*") if client.type(key) == b"list"]
    messages = [json.loads(m) for key in lists for m in client.lrange(key, 0, -1)]
    return [
        json.loads(base64.b64decode(m["body"]))[0][0]
        for m in messages
        if m.get("headers", {}).get("task") == APPLY_EVENTS_TASK
    ]


@pytest.mark.django_db(transaction=True)
def test_every_accepted_event_is_published_to_the_workers_once(live_server, ingest_token, broker):  # type: ignore[no-untyped-def]
    events = [run_event("START", run_id=new_run_id()) for _ in range(60)]
    with ThreadPoolExecutor(12) as pool:
        answers = list(pool.map(lambda e: _post(live_server.url, ingest_token, e), events))
    accepted = {body["id"] for status, body in answers if status == 201}
    assert len(accepted) == 60

    def published() -> list[int]:  # earlier tests' messages may still be in the queue: ours only
        return [event_id for ids in _published_event_ids(broker.url) for event_id in ids if event_id in accepted]

    wait_until(lambda: len(published()) >= 60, timeout=10, what="every accepted event to be published")
    assert sorted(published()) == sorted(accepted)  # each event published, once


def test_rows_submitted_while_a_group_commits_share_the_next_commit() -> None:
    groups: list[list[int]] = []
    storing, release = threading.Event(), threading.Event()

    def store(rows: Sequence[int]) -> list[int]:
        groups.append(list(rows))
        if len(groups) == 1:  # the first group holds the commit until eight more rows wait
            storing.set()
            release.wait(timeout=30)
        return [row * 10 for row in rows]

    committer: GroupCommitter[int, int] = GroupCommitter(store)
    with ThreadPoolExecutor(9) as pool:
        first = pool.submit(committer.submit, 0)
        assert storing.wait(timeout=30)
        rest = [pool.submit(committer.submit, row) for row in range(1, 9)]
        wait_until(lambda: committer.waiting() == 8, timeout=30, interval=0.01, what="eight rows to wait")
        release.set()
        answers = [first.result(timeout=30), *(f.result(timeout=30) for f in rest)]
    assert answers == [row * 10 for row in range(9)]  # each caller gets its own row's answer
    assert len(groups) == 2 and groups[0] == [0] and sorted(groups[1]) == list(range(1, 9))


def test_a_failed_commit_fails_every_caller_in_its_group_and_the_next_group_commits() -> None:
    groups: list[list[int]] = []
    storing, release = threading.Event(), threading.Event()

    def store(rows: Sequence[int]) -> list[int]:
        groups.append(list(rows))
        if len(groups) == 1:
            storing.set()
            release.wait(timeout=30)
        if len(groups) == 2:
            raise OSError("disk full")
        return list(rows)

    committer: GroupCommitter[int, int] = GroupCommitter(store)
    with ThreadPoolExecutor(4) as pool:
        first = pool.submit(committer.submit, 0)
        assert storing.wait(timeout=30)
        failing = [pool.submit(committer.submit, row) for row in range(1, 4)]
        wait_until(lambda: committer.waiting() == 3, timeout=30, interval=0.01, what="three rows to wait")
        release.set()
        assert first.result(timeout=30) == 0
        for future in failing:
            with pytest.raises(OSError, match="disk full"):
                future.result(timeout=30)
    assert committer.submit(4) == 4 and len(groups) == 3


def test_ids_committed_while_a_message_is_sent_go_out_together_in_the_next() -> None:
    sent: list[list[int]] = []
    pauses: list[float] = []
    sending, release = threading.Event(), threading.Event()

    def send(event_ids: list[int]) -> None:
        sent.append(event_ids)
        if len(sent) == 1:  # the broker takes its time over the first message
            sending.set()
            release.wait(timeout=30)

    publisher = Publisher(send, sleep=pauses.append)
    publisher.add([3])
    assert sending.wait(timeout=30)
    for event_ids in ([5, 4], [2], [6]):
        publisher.add(event_ids)
    release.set()
    wait_until(lambda: len(sent) == 2, timeout=30, interval=0.01, what="the second message")
    assert sent == [[3], [2, 4, 5, 6]]
    assert pauses == [PUBLISH_GATHER_SECONDS] * 2  # each message first gathers for the publish interval
