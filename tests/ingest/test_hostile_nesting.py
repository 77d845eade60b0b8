"""Both ingest endpoints bound how deep a body nests (`INGEST_MAX_JSON_DEPTH`) before parsing it: up to
the maximum an event is accepted, one level more is refused with a 400 that names the maximum."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from lineage_app.ingest.models import LineageEvent
from tests.events import facet, new_run_id, run_event
from tests.ingest.test_json_text import decoded_depth

pytestmark = pytest.mark.django_db

EVENT_URL, BATCH_URL = "/api/v1/lineage", "/api/v1/lineage/batch"
MEBIBYTE = 1024 * 1024


def nested_event(depth: int) -> bytes:
    """A valid run event whose custom run facet holds lists nested so that the event is `depth` deep."""
    event = run_event("START", run_id=new_run_id())
    event["run"]["facets"] = {"custom": facet(value="X")}
    levels = depth - 4  # the value sits in the event, `run`, `facets` and `custom`: four objects deep
    body = json.dumps(event).replace('"X"', "[" * levels + "]" * levels)
    assert decoded_depth(json.loads(body)) == depth
    return body.encode()


def event_with_value(value: str) -> bytes:
    event = run_event("START", run_id=new_run_id())
    event["run"]["facets"] = {"custom": facet(value=value)}
    return json.dumps(event).encode()


def post(client: APIClient, url: str, body: bytes) -> Any:
    """`body` as the event itself, or as a batch's only element."""
    return client.post(url, data=body if url == EVENT_URL else b"[" + body + b"]", content_type="application/json")


def assert_accepted(response: Any, url: str) -> None:
    assert response.status_code == (201 if url == EVENT_URL else 200), response.content
    answer = response.json()
    assert (answer if url == EVENT_URL else answer["results"][0])["status"] == "accepted", answer


def assert_too_deep(response: Any, *, maximum: int) -> None:
    assert response.status_code == 400, response.content
    assert response["Content-Type"].startswith("application/json")
    assert response.json() == {
        "error": "invalid_event",
        "message": f"JSON is nested deeper than {maximum} levels, the maximum depth of an event",
        "path": "$",
    }


both_endpoints = pytest.mark.parametrize("url", [EVENT_URL, BATCH_URL], ids=["event", "batch"])


@both_endpoints
def test_an_event_nested_exactly_to_the_maximum_depth_is_accepted(ingest_client: APIClient, url: str) -> None:
    assert_accepted(post(ingest_client, url, nested_event(64)), url)
    assert LineageEvent.objects.count() == 1


@both_endpoints
def test_an_event_nested_one_level_past_the_maximum_is_refused_with_a_400_naming_the_maximum(
    ingest_client: APIClient, url: str
) -> None:
    assert_too_deep(post(ingest_client, url, nested_event(65)), maximum=64)
    assert LineageEvent.objects.count() == 0


@both_endpoints
@override_settings(INGEST_MAX_JSON_DEPTH=10)
def test_the_maximum_depth_is_the_setting(ingest_client: APIClient, url: str) -> None:
    assert_accepted(post(ingest_client, url, nested_event(10)), url)
    assert_too_deep(post(ingest_client, url, nested_event(11)), maximum=10)


@both_endpoints
@pytest.mark.parametrize("value", ["[{" * 100, "]}" * 100, '\\"[[' * 100, "\\\\[{" * 100], ids=repr)
def test_brackets_inside_strings_escaped_quotes_or_not_do_not_count(
    ingest_client: APIClient, url: str, value: str
) -> None:
    assert_accepted(post(ingest_client, url, event_with_value(value)), url)


@both_endpoints
@pytest.mark.parametrize(
    "body",
    [
        b"[" * (MEBIBYTE // 2 - 1) + b"]" * (MEBIBYTE // 2 - 1),
        b'{"a":' * (MEBIBYTE // 6 - 1) + b"1" + b"}" * (MEBIBYTE // 6 - 1),
        b"[" * (MEBIBYTE - 2),  # never closed
    ],
    ids=["arrays", "objects", "unclosed"],
)
def test_a_mebibyte_nested_as_deep_as_it_can_is_refused_for_its_depth(
    ingest_client: APIClient, url: str, body: bytes
) -> None:
    assert_too_deep(post(ingest_client, url, body), maximum=64)


@both_endpoints
def test_a_mebibyte_string_of_escaped_quotes_that_never_ends_is_refused_as_malformed_json(
    ingest_client: APIClient, url: str
) -> None:
    body = b'{"a": "' + b'\\"' * (MEBIBYTE // 2 - 100) + b"[" * 100
    response = post(ingest_client, url, body)
    assert response.status_code == 400, response.content
    assert response.json()["message"].startswith("malformed JSON: Unterminated string")
