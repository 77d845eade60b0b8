"""Structured logs: one line per request and per task, as JSON when `LOG_FORMAT=json`, carrying the request
(or task) id, the route, status, duration, caller and the event ids involved."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from rest_framework.test import APIClient

from lineage_app.ingest.tasks import apply_events
from lineage_app.observability.logs import JsonFormatter, log_context_close, log_context_open
from tests.events import run_lifecycle

pytestmark = pytest.mark.django_db


def json_lines(caplog: pytest.LogCaptureFixture, logger: str) -> list[dict[str, Any]]:
    return [json.loads(JsonFormatter().format(r)) for r in caplog.records if r.name == logger]


def test_a_request_logs_one_line_with_its_route_status_caller_and_stored_ids(  # type: ignore[no-untyped-def]
    graph,
    ingest_client: APIClient,
    caplog: pytest.LogCaptureFixture,
) -> None:
    first, second, _ = run_lifecycle()
    caplog.set_level(logging.INFO)
    ingest_client.post("/api/v1/lineage", data=json.dumps(first), content_type="application/json")
    answer = ingest_client.post(
        "/api/v1/lineage/batch",
        data=json.dumps([first, second]),
        content_type="application/json",
        HTTP_X_REQUEST_ID="edge-7f3a",
    )
    assert answer["X-Request-ID"] == "edge-7f3a"
    single, batch = json_lines(caplog, "lineage_app.observability.middleware")
    assert set(single) >= {"time", "level", "logger", "pid", "message", "request_id", "duration_ms"}
    assert len(single["request_id"]) == 32, "a request without an id of its own gets a fresh one"
    assert (single["method"], single["route"], single["status"], single["user"]) == (
        "POST",
        "/api/v1/lineage",
        201,
        "token:test ingest",
    )
    stored = answer.json()["results"]
    assert batch["request_id"] == "edge-7f3a"
    assert (batch["route"], batch["status"]) == ("/api/v1/lineage/batch", 200)
    assert (batch["event_ids"], batch["duplicate_ids"]) == ([stored[1]["id"]], [stored[0]["id"]])
    assert batch["message"].startswith("POST /api/v1/lineage/batch 200 ")
    assert isinstance(batch["duration_ms"], float) and batch["duration_ms"] > 0


def test_a_caller_request_id_that_is_not_plain_is_replaced(graph, read_client: APIClient) -> None:  # type: ignore[no-untyped-def]
    answer = read_client.get("/api/v1/namespaces", HTTP_X_REQUEST_ID='x" injected\nline')
    assert answer["X-Request-ID"] != 'x" injected\nline' and len(answer["X-Request-ID"]) == 32


def test_a_task_logs_one_line_with_its_name_event_ids_duration_and_outcome(  # type: ignore[no-untyped-def]
    graph,
    ingest_client: APIClient,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ids = [
        ingest_client.post("/api/v1/lineage", data=json.dumps(e), content_type="application/json").json()["id"]
        for e in run_lifecycle()
    ]
    caplog.set_level(logging.INFO)
    assert apply_events.apply(args=(ids,)).get() == 3
    (line,) = json_lines(caplog, "lineage_app.observability.worker")
    assert (line["task"], line["outcome"], sorted(line["event_ids"])) == (apply_events.name, "SUCCESS", sorted(ids))
    assert line["task_id"] and line["duration_ms"] > 0


def test_every_line_logged_during_a_request_carries_its_id() -> None:
    record = logging.LogRecord("lineage_app.ingest", logging.WARNING, __file__, 1, "broker down: %d", (3,), None)
    context = log_context_open(request_id="r-1", event_ids=[1, 2])
    try:
        inside = json.loads(JsonFormatter().format(record))
    finally:
        log_context_close(context)
    outside = json.loads(JsonFormatter().format(record))
    assert (inside["request_id"], inside["message"], inside["level"]) == ("r-1", "broker down: 3", "WARNING")
    assert "event_ids" not in inside, "only the closing line carries the gathered fields"
    assert "request_id" not in outside
