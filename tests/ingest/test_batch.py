"""The batch ingestion endpoint: a JSON array in, OpenLineage's batch receipt out, with one result per event
beside it; each event stands or falls alone."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest
from django.db import OperationalError
from django.test import override_settings
from rest_framework.test import APIClient

from lineage_app.ingest.models import LineageEvent
from tests.events import facet, new_run_id, run_event, run_lifecycle
from tests.ingest.test_api_contract import deep_nesting

pytestmark = pytest.mark.django_db

URL = "/api/v1/lineage/batch"


def post_batch(client: APIClient, body: Any, *, content_type: str = "application/json", **extra: Any) -> Any:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post(URL, data=data, content_type=content_type, **extra)


def ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.content
    return response.json()


def summary(body: dict[str, Any]) -> tuple[int, int, int, int, int]:
    """The receipt's summary: received, successful, failed, retriable, non-retriable."""
    s = body["summary"]
    return s["received"], s["successful"], s["failed"], s["retriable"], s["non_retriable"]


def assert_error(response: Any, status: int, error: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["error"] and body["message"]
    if error is not None:
        assert body["error"] == error, body
    return body


def test_a_batch_of_valid_events_is_stored_and_each_gets_its_id(ingest_client: APIClient) -> None:
    events = run_lifecycle()
    body = ok(post_batch(ingest_client, events))
    assert (body["status"], summary(body), body["failed_events"]) == ("success", (3, 3, 0, 0, 0), [])
    assert [r["index"] for r in body["results"]] == [0, 1, 2]
    assert all(r["status"] == "accepted" and r["errors"] == [] for r in body["results"])
    ids = [r["id"] for r in body["results"]]
    assert len(set(ids)) == 3
    assert [LineageEvent.objects.get(id=i).event_type for i in ids] == ["START", "RUNNING", "COMPLETE"]
    assert [LineageEvent.objects.get(id=i).payload for i in ids] == events


def test_each_event_of_a_batch_is_logged_with_its_exact_bytes_as_sent(ingest_client: APIClient) -> None:
    first, second = run_event("START", run_id=new_run_id()), run_event("COMPLETE", run_id=new_run_id())
    # Pretty-printed, keys in the sender's order, non-ASCII as sent: the log keeps the bytes, not a re-encoding.
    first["job"]["name"] = "étape"
    texts = [json.dumps(first, indent=2, ensure_ascii=False), json.dumps(second)]
    body = ok(post_batch(ingest_client, f" [\n {texts[0]} ,\t{texts[1]}\r\n] ".encode()))
    rows = [LineageEvent.objects.get(id=r["id"]) for r in body["results"]]
    assert [bytes(row.raw) for row in rows] == [text.encode() for text in texts]
    assert [row.payload for row in rows] == [first, second]


@pytest.mark.parametrize("body", [b"[", b"[{}", b"[{},]", b"[{} {}]", b"[{}] x", b"[,{}]", b"{} []"])
def test_a_malformed_batch_array_is_rejected_with_400_naming_where(ingest_client: APIClient, body: bytes) -> None:
    response = assert_error(post_batch(ingest_client, body), 400, "invalid_event")
    assert response["message"].startswith("malformed JSON") and "column" in response["message"]
    assert LineageEvent.objects.count() == 0


def test_an_empty_batch_is_rejected_with_400_saying_it_is_empty(ingest_client: APIClient) -> None:
    response = assert_error(post_batch(ingest_client, []), 400, "invalid_batch")
    assert (response["path"], response["message"]) == ("$", "the batch is empty: send an array of at least one event")
    assert_error(post_batch(ingest_client, b" [ ] "), 400, "invalid_batch")


def mixed_batch() -> list[Any]:
    """Three valid events, four the core refuses (index 1, 2, 4, 6) and one with an invalid facet (index 5)."""
    good_start, good_running, good_end = run_lifecycle()
    no_tz = run_event("START", run_id=new_run_id())
    no_tz["eventTime"] = "2026-01-05T08:00:00"
    bad_facet = run_event(
        "START",
        run_id=new_run_id(),
        inputs=[{"namespace": "n", "name": "d", "facets": {"schema": facet(fields=[{"name": 7, "type": "int"}])}}],
    )
    no_run_id = run_event("START", run_id=new_run_id())
    del no_run_id["run"]["runId"]
    return [good_start, no_tz, "not an event", good_running, {"hello": "world"}, bad_facet, no_run_id, good_end]


def test_in_a_mixed_batch_valid_events_are_stored_and_invalid_ones_are_not(ingest_client: APIClient) -> None:
    body = ok(post_batch(ingest_client, mixed_batch()))
    assert (body["status"], summary(body)) == ("partial_success", (8, 4, 4, 0, 4))
    # Each failure's reason is its error and where it is; none of them can pass when sent again.
    assert body["failed_events"] == [
        {
            "index": r["index"],
            "reason": f"{r['errors'][0]['message']} (at {r['errors'][0]['path']})",
            "retriable": False,
        }
        for r in body["results"]
        if r["status"] == "rejected"
    ]
    assert [f["index"] for f in body["failed_events"]] == [1, 2, 4, 6]
    statuses = [r["status"] for r in body["results"]]
    assert statuses == ["accepted", "rejected", "rejected", "accepted", "rejected", "accepted", "rejected", "accepted"]
    rejected = {r["index"]: r for r in body["results"] if r["status"] == "rejected"}
    assert all(r["id"] is None and r["warnings"] == [] for r in rejected.values())
    assert rejected[1]["errors"][0]["path"] == "eventTime"
    assert "timezone" in rejected[1]["errors"][0]["message"]
    assert rejected[2]["errors"][0]["path"] == "$"
    assert rejected[4]["errors"][0]["path"] == "$"
    assert rejected[6]["errors"] == [{"path": "run.runId", "message": "'runId' is a required property"}]
    # The event whose facet fails its schema is stored, and its answer says which facet and why.
    warned = body["results"][5]
    assert warned["errors"] == []
    assert warned["warnings"] == [
        {"path": "inputs[0].facets.schema", "message": "fields[0].name: 7 is not of type 'string'"}
    ]
    assert all(r["warnings"] == [] for i, r in enumerate(body["results"]) if i != 5)
    assert LineageEvent.objects.get(id=warned["id"]).facet_warnings == [
        {
            "path": "inputs[0].facets.schema",
            "message": "fields[0].name: 7 is not of type 'string'",
            "at": ["inputs", 0, "facets", "schema"],
        }
    ]
    assert LineageEvent.objects.count() == 4
    assert sorted(LineageEvent.objects.values_list("id", flat=True)) == sorted(
        r["id"] for r in body["results"] if r["status"] == "accepted"
    )


@override_settings(FACET_POLICY="strict")
def test_under_a_strict_facet_policy_the_event_with_an_invalid_facet_is_rejected_alone(
    ingest_client: APIClient,
) -> None:
    body = ok(post_batch(ingest_client, mixed_batch()))
    assert summary(body) == (8, 3, 5, 0, 5)
    assert body["failed_events"][3] == {
        "index": 5,
        "reason": "7 is not of type 'string' (at inputs[0].facets.schema.fields[0].name)",
        "retriable": False,
    }
    assert body["results"][5] == {
        "index": 5,
        "status": "rejected",
        "id": None,
        "leafIndex": None,
        "warnings": [],
        "errors": [{"path": "inputs[0].facets.schema.fields[0].name", "message": "7 is not of type 'string'"}],
    }
    assert LineageEvent.objects.count() == 3


def test_a_duplicate_in_a_batch_is_answered_with_the_same_warnings(ingest_client: APIClient) -> None:
    event = run_event("START", run_id=new_run_id(), run_facets={"processing_engine": facet(name="spark")})
    first = ok(post_batch(ingest_client, [event]))["results"][0]
    again = ok(post_batch(ingest_client, [event, event]))["results"]
    warning = {"path": "run.facets.processing_engine", "message": "'version' is a required property"}
    assert first["status"] == "accepted" and first["warnings"] == [warning]
    assert [(r["status"], r["id"], r["warnings"]) for r in again] == [("duplicate", first["id"], [warning])] * 2


def test_a_batch_of_only_invalid_events_stores_nothing(ingest_client: APIClient) -> None:
    body = ok(post_batch(ingest_client, [1, None, [], {"run": {}}]))
    assert (body["status"], summary(body)) == ("partial_success", (4, 0, 4, 0, 4))
    assert [f["index"] for f in body["failed_events"]] == [0, 1, 2, 3]
    assert LineageEvent.objects.count() == 0


def test_the_same_event_twice_in_one_batch_is_stored_once_and_the_second_is_a_duplicate(
    ingest_client: APIClient,
) -> None:
    event = run_event("START", run_id=new_run_id())
    reordered = json.loads(json.dumps(event, sort_keys=True))
    body = ok(post_batch(ingest_client, [event, reordered, event]))
    assert [r["status"] for r in body["results"]] == ["accepted", "duplicate", "duplicate"]
    assert len({r["id"] for r in body["results"]}) == 1
    assert (body["status"], summary(body)) == ("success", (3, 3, 0, 0, 0))
    assert LineageEvent.objects.count() == 1


def test_events_already_posted_are_duplicates_in_a_later_batch(ingest_client: APIClient) -> None:
    first, second, third = run_lifecycle()
    single = ingest_client.post("/api/v1/lineage", data=json.dumps(first), content_type="application/json")
    earlier = ok(post_batch(ingest_client, [second]))
    body = ok(post_batch(ingest_client, [first, second, third]))
    assert [r["status"] for r in body["results"]] == ["duplicate", "duplicate", "accepted"]
    assert body["results"][0]["id"] == single.json()["id"]
    assert body["results"][1]["id"] == earlier["results"][0]["id"]
    assert LineageEvent.objects.count() == 3


def test_an_event_from_a_batch_is_a_duplicate_when_posted_alone_later(ingest_client: APIClient) -> None:
    event = run_event("COMPLETE", run_id=new_run_id())
    stored = ok(post_batch(ingest_client, [event]))["results"][0]
    again = ingest_client.post("/api/v1/lineage", data=json.dumps(event), content_type="application/json")
    assert again.status_code == 200
    assert again.json() == {"id": stored["id"], "status": "duplicate", "leafIndex": stored["leafIndex"], "warnings": []}


@pytest.mark.parametrize("body", [{"events": []}, "x", 3, None], ids=["object", "string", "number", "null"])
def test_a_batch_body_that_is_not_a_json_array_is_rejected_with_400(ingest_client: APIClient, body: Any) -> None:
    response = assert_error(post_batch(ingest_client, body), 400, "invalid_batch")
    assert "array" in response["message"]
    assert LineageEvent.objects.count() == 0


def test_a_batch_body_that_is_not_json_is_rejected_with_400(ingest_client: APIClient) -> None:
    assert_error(post_batch(ingest_client, b"[{]"), 400, "invalid_event")
    assert_error(post_batch(ingest_client, b"[NaN]"), 400, "invalid_event")
    assert_error(post_batch(ingest_client, b"[\xff]"), 400, "invalid_event")
    assert LineageEvent.objects.count() == 0


def test_events_nested_up_to_the_depth_limit_are_accepted_in_a_batch(ingest_client: APIClient) -> None:
    body = ok(post_batch(ingest_client, b"[" + deep_nesting(40) + b"," + deep_nesting(40) + b"]"))
    assert [r["status"] for r in body["results"]] == ["accepted", "accepted"]


@pytest.mark.parametrize("levels", [80, 100_000], ids=["beyond the limit", "beyond the parser's stack"])
def test_a_batch_with_an_event_nested_too_deep_is_rejected_with_400(ingest_client: APIClient, levels: int) -> None:
    good = json.dumps(run_event("START", run_id=new_run_id())).encode()
    response = assert_error(
        post_batch(ingest_client, b"[" + good + b"," + deep_nesting(levels) + b"]"), 400, "invalid_event"
    )
    assert "nested deeper than 64 levels" in response["message"]
    assert LineageEvent.objects.count() == 0


def test_a_batch_nested_too_deep_as_a_whole_is_rejected_with_400(ingest_client: APIClient) -> None:
    response = assert_error(post_batch(ingest_client, b"[" * 100_000 + b"]" * 100_000), 400, "invalid_event")
    assert "nested deeper" in response["message"]


@override_settings(INGEST_MAX_BATCH_EVENTS=2)
def test_a_batch_with_more_events_than_allowed_is_rejected_with_413_and_nothing_is_stored(
    ingest_client: APIClient,
) -> None:
    response = assert_error(post_batch(ingest_client, run_lifecycle()), 413, "payload_too_large")
    assert "3 events" in response["message"]
    assert LineageEvent.objects.count() == 0


@override_settings(INGEST_MAX_BATCH_BYTES=1024)
def test_a_batch_over_the_byte_limit_is_rejected_with_413(ingest_client: APIClient) -> None:
    assert_error(post_batch(ingest_client, run_lifecycle()), 413, "payload_too_large")
    assert LineageEvent.objects.count() == 0


def test_an_event_over_the_per_event_size_limit_is_rejected_alone(ingest_client: APIClient) -> None:
    small = run_event("START", run_id=new_run_id())
    big = run_event("START", run_id=new_run_id())
    big["run"]["facets"] = {"custom": facet(payload="x" * 4000)}
    with override_settings(INGEST_MAX_EVENT_BYTES=2048):
        body = ok(post_batch(ingest_client, [small, big]))
    assert [r["status"] for r in body["results"]] == ["accepted", "rejected"]
    assert "2048" in body["results"][1]["errors"][0]["message"]
    assert LineageEvent.objects.count() == 1


def test_an_event_with_a_lone_surrogate_is_rejected_alone(ingest_client: APIClient) -> None:
    good = run_event("START", run_id=new_run_id())
    bad = json.dumps(run_event("START", run_id=new_run_id())).replace("etl.daily", "etl\\udc00")
    body = ok(post_batch(ingest_client, f"[{json.dumps(good)}, {bad}]".encode()))
    assert [r["status"] for r in body["results"]] == ["accepted", "rejected"]
    assert body["results"][1]["errors"][0]["path"] == "job.name"
    assert LineageEvent.objects.count() == 1


def test_a_gzip_batch_is_accepted(ingest_client: APIClient) -> None:
    events = run_lifecycle()
    body = ok(post_batch(ingest_client, gzip.compress(json.dumps(events).encode()), HTTP_CONTENT_ENCODING="gzip"))
    assert (body["status"], summary(body)) == ("success", (3, 3, 0, 0, 0))


def test_a_batch_needs_an_ingest_token(db: None, read_client: APIClient) -> None:
    batch = run_lifecycle()
    no_token = post_batch(APIClient(), batch)
    assert_error(no_token, 401)
    assert no_token["WWW-Authenticate"].startswith("Bearer")
    assert_error(post_batch(read_client, batch), 403)
    assert LineageEvent.objects.count() == 0


def test_a_batch_that_is_not_declared_json_is_rejected_with_415(ingest_client: APIClient) -> None:
    assert_error(post_batch(ingest_client, run_lifecycle(), content_type="text/plain"), 415, "unsupported_media_type")
    assert LineageEvent.objects.count() == 0


def test_when_the_event_log_cannot_be_written_the_batch_is_answered_503_and_its_events_retriable(
    ingest_client: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fault that cannot be caused otherwise in a test: the database failing while it writes the batch.
    def unavailable(*args: Any, **kwargs: Any) -> None:
        raise OperationalError("could not connect to server")

    batch = [*run_lifecycle()[:2], "not an event"]
    with monkeypatch.context() as patched:
        patched.setattr("lineage_app.ingest.services.log_insert", unavailable)
        response = post_batch(ingest_client, batch)
    assert (response.status_code, response["Retry-After"]) == (503, "5")
    body = response.json()
    assert (body["status"], summary(body)) == ("partial_success", (3, 0, 3, 2, 1))
    assert [(f["index"], f["retriable"]) for f in body["failed_events"]] == [(0, True), (1, True), (2, False)]
    assert "send it again" in body["failed_events"][0]["reason"]
    assert [(r["status"], r["id"]) for r in body["results"]] == [("unavailable", None)] * 2 + [("rejected", None)]
    assert LineageEvent.objects.count() == 0
    # Sent again once the log is back, the retriable events are stored: nothing was lost.
    again = ok(post_batch(ingest_client, batch))
    assert (again["status"], summary(again)) == ("partial_success", (3, 2, 1, 0, 1))
    assert LineageEvent.objects.count() == 2
