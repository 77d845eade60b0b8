"""What the relay answers and reports after a known workload: bad input, events the server refuses, the rest."""

from __future__ import annotations

import gzip
import http.client
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lineage_app.ingest.models import LineageEvent
from tests.conftest import wait_until
from tests.events import facet, new_run_id, run_event
from tests.relay.conftest import RelayProcess, http_call, post_json

pytestmark = pytest.mark.django_db(transaction=True)


def _nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels):
        value = {"deeper": value}
    return value


def test_bad_input_gets_a_clear_json_error_and_is_not_buffered(  # type: ignore[no-untyped-def]
    live_server, ingest_token, relay_key: tuple[Ed25519PrivateKey, Path], tmp_path: Path
):
    relay = RelayProcess(
        tmp_path,
        key_path=relay_key[1],
        server_url=live_server.url,
        token=ingest_token,
        extra=["--max-event-bytes", "4000"],
    )
    relay.start()
    json_headers = {"Content-Type": "application/json"}
    event_url, batch_url = f"{relay.url}/api/v1/lineage", f"{relay.url}/api/v1/lineage/batch"
    try:
        cases = [
            (event_url, b'{"eventType": "START",', json_headers, 400, "invalid_event"),
            (event_url, b"[1, 2]", json_headers, 400, "invalid_event"),
            (event_url, b'{"run": {}, "run": {}}', json_headers, 400, "invalid_event"),
            (event_url, b'{"run": {"x": NaN}}', json_headers, 400, "invalid_event"),
            (event_url, b"{}", {"Content-Type": "text/plain"}, 415, "unsupported_media_type"),
            (event_url, b" " * 4001, json_headers, 413, "payload_too_large"),
            (
                event_url,
                gzip.compress(b" " * 5000),
                {**json_headers, "Content-Encoding": "gzip"},
                413,
                "payload_too_large",
            ),
            (batch_url, b'{"not": "an array"}', json_headers, 400, "invalid_batch"),
            (batch_url, b"[{}, ", json_headers, 400, "invalid_batch"),
            (f"{relay.url}/api/v2/lineage", b"{}", json_headers, 404, "not_found"),
        ]
        for url, body, headers, status, code in cases:
            answered, raw = http_call(url, body=body, headers=headers)
            assert (answered, json.loads(raw)["error"]) == (status, code), (body[:40], raw)
            assert json.loads(raw)["message"]
        assert relay.metrics()["lineage_events_received_total"] == 0
    finally:
        relay.terminate()


def test_healthz_and_metrics_after_a_known_workload(  # type: ignore[no-untyped-def]
    live_server, ingest_token, relay_key: tuple[Ed25519PrivateKey, Path], tmp_path: Path
):
    relay = RelayProcess(tmp_path, key_path=relay_key[1], server_url=live_server.url, token=ingest_token)
    relay.start()
    try:
        for _ in range(5):
            assert post_json(f"{relay.url}/api/v1/lineage", run_event("START", run_id=new_run_id()))[0] == 201
        # As a Java client may stream it: gzip, in chunks of unknown total length.
        connection = http.client.HTTPConnection("127.0.0.1", relay.port, timeout=10)
        streamed = gzip.compress(json.dumps(run_event("START", run_id=new_run_id())).encode())
        headers = {"Content-Type": "application/json", "Content-Encoding": "gzip", "Transfer-Encoding": "chunked"}
        chunks = (streamed[i : i + 100] for i in range(0, len(streamed), 100))
        connection.request("POST", "/api/v1/lineage", body=chunks, headers=headers, encode_chunked=True)
        assert connection.getresponse().status == 201
        connection.close()
        # Refused by the relay itself (element 1): answered in its result, never buffered or counted.
        status, answer = post_json(f"{relay.url}/api/v1/lineage/batch", [run_event("START", run_id=new_run_id()), 7])
        assert (status, answer["status"], answer["summary"]["successful"], answer["summary"]["failed"]) == (
            200,
            "partial_success",
            1,
            1,
        )
        assert answer["results"][1]["errors"][0]["path"] == "$[1]"
        assert (answer["failed_events"][0]["index"], answer["failed_events"][0]["retriable"]) == (1, False)
        # Refused by the server: one event it rejects in its per-event answer, one so deeply nested that it
        # refuses the whole batch (the relay halves the batch until that event is alone).
        bad_time = {**run_event("START", run_id=new_run_id()), "eventTime": "yesterday"}
        too_deep = run_event("START", run_id=new_run_id(), run_facets={"deep": facet(value=_nested(80))})
        good = [run_event("COMPLETE", run_id=new_run_id()) for _ in range(3)]
        status, answer = post_json(f"{relay.url}/api/v1/lineage/batch", [good[0], bad_time, good[1], too_deep, good[2]])
        assert (status, answer["summary"]["successful"]) == (200, 5)
        wait_until(lambda: relay.metrics()["lineage_relay_backlog_events"] == 0, timeout=30, what="forwarding")

        metrics = relay.metrics()
        health = relay.health()
        status, raw = http_call(f"{relay.url}/metrics")
    finally:
        assert relay.terminate() == 0

    assert metrics == {
        "lineage_events_received_total": 12,
        "lineage_events_forwarded_total": 10,
        "lineage_events_rejected_total": 2,
        'lineage_events_dropped_total{reason="buffer_full"}': 0,
        'lineage_events_dropped_total{reason="disk_full"}': 0,
        'lineage_events_dropped_total{reason="storage_error"}': 0,
        "lineage_relay_backlog_events": 0,
        "lineage_relay_backlog_bytes": 0,
        "lineage_relay_oldest_pending_age_seconds": 0,
        "lineage_relay_server_up": 1,
    }
    text = raw.decode()
    for name in ("lineage_events_received_total", "lineage_events_dropped_total", "lineage_relay_backlog_events"):
        assert f"# HELP {name} " in text and f"# TYPE {name} " in text
    assert health["status"] == "ok"
    assert health["backlog"] == {"events": 0, "bytes": 0, "oldestPendingAgeSeconds": None}
    assert health["server"]["reachable"] is True and health["server"]["url"] == live_server.url
    assert health["counters"]["received"] == 12 and health["counters"]["rejected"] == 2

    assert LineageEvent.objects.count() == 10
    with sqlite3.connect(relay.buffer) as db:
        rejected = {
            json.loads(body)["run"]["runId"]: errors for body, errors in db.execute("SELECT body, errors FROM rejected")
        }
    assert set(rejected) == {bad_time["run"]["runId"], too_deep["run"]["runId"]}
    assert "eventTime" in rejected[bad_time["run"]["runId"]]
    assert "nested deeper" in rejected[too_deep["run"]["runId"]]
    assert relay.logs().count("the server rejected buffered event") == 2
