"""Transports against a real local HTTP server and real files (no Spark needed)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from agent_support import read_events

from lineage_relay.transports.file import FileSink
from lineage_relay.transports.http import HttpSink, retry_after_seconds
from spark_agent.counters import Counters
from spark_agent.emitter import AsyncEmitter
from tests.recording_server import RecordingServer


def _event(i: int) -> dict[str, Any]:
    return {"eventType": "START", "run": {"runId": f"run-{i}"}, "payload": "x" * 100}


def _emitter(sink: Any, **kwargs: Any) -> tuple[AsyncEmitter, Counters]:
    counters = Counters()
    return AsyncEmitter(sink, counters, **kwargs), counters


def _fast_http(url: str, **kwargs: Any) -> HttpSink:
    return HttpSink(url, "tok", backoff_base_s=0.01, backoff_max_s=0.05, **kwargs)


def test_batches_go_to_the_batch_endpoint(server: RecordingServer) -> None:
    emitter, counters = _emitter(_fast_http(server.url), batch_size=3)
    for i in range(7):
        emitter.put(_event(i))
    assert emitter.flush(5)
    assert [e["run"]["runId"] for e in server.events] == [f"run-{i}" for i in range(7)]
    assert all(len(b) <= 3 for b in server.batches)
    assert server.requests[0]["headers"]["Content-Type"] == "application/json"
    assert counters.get("events_emitted_total") == 7


def test_server_errors_are_retried_until_they_succeed(server: RecordingServer) -> None:
    server.fail_with = [500, 503, 429]
    emitter, counters = _emitter(_fast_http(server.url))
    emitter.put(_event(1))
    assert emitter.flush(5)
    assert len(server.requests) == 4
    assert counters.snapshot()["events_emitted_total"] == 1


def test_a_bad_request_is_not_retried_and_is_dropped(server: RecordingServer) -> None:
    server.fail_with = [400, 400]
    emitter, counters = _emitter(_fast_http(server.url))
    emitter.put(_event(1))
    assert emitter.flush(5)
    assert len(server.requests) == 1
    assert counters.get("events_dropped_total") == 1


def test_a_bad_request_is_spilled_when_spill_is_on(server: RecordingServer, tmp_path: Path) -> None:
    server.fail_with = [401]
    spill = tmp_path / "spill.jsonl"
    emitter, counters = _emitter(_fast_http(server.url), spill=FileSink(str(spill)))
    emitter.put(_event(1))
    assert emitter.flush(5)
    assert [e["run"]["runId"] for e in read_events(spill)] == ["run-1"]
    assert (counters.get("events_spilled_total"), counters.get("events_dropped_total")) == (1, 0)


def test_events_the_backend_rejects_count_as_dropped(server: RecordingServer) -> None:
    server.reject_indexes = {1}
    emitter, counters = _emitter(_fast_http(server.url), batch_size=10)
    for i in range(3):
        emitter.put(_event(i))
    emitter.close(5)
    assert (counters.get("events_emitted_total"), counters.get("events_dropped_total")) == (2, 1)


def test_events_the_backend_names_retriable_are_spilled_not_dropped(server: RecordingServer, tmp_path: Path) -> None:
    server.retry_indexes = {0, 2}
    spill = tmp_path / "spill.jsonl"
    emitter, counters = _emitter(_fast_http(server.url), batch_size=10, spill=FileSink(str(spill)))
    for i in range(3):
        emitter.put(_event(i))
    emitter.close(5)
    assert [e["run"]["runId"] for e in read_events(spill)] == ["run-0", "run-2"]
    assert (counters.get("events_emitted_total"), counters.get("events_dropped_total")) == (1, 0)


def test_retries_stop_at_the_flush_deadline(server: RecordingServer) -> None:
    server.fail_with = [503] * 1000
    sink = HttpSink(server.url, None, max_retries=50, backoff_base_s=0.2, backoff_max_s=0.2)
    emitter, counters = _emitter(sink)
    emitter.put(_event(1))
    started = time.monotonic()
    emitter.close(1.0)
    assert time.monotonic() - started < 2.0
    assert counters.get("events_dropped_total") == 1


def test_a_429_s_retry_after_is_waited_for_and_nothing_is_lost(server: RecordingServer) -> None:
    server.fail_with = [(429, {"Retry-After": "1"})]
    emitter, counters = _emitter(_fast_http(server.url), batch_size=10)
    for i in range(3):
        emitter.put(_event(i))
    assert emitter.flush(10)
    assert len(server.requests) == 2
    assert server.gaps()[0] >= 1.0, "sent again before the Retry-After had passed"
    assert [e["run"]["runId"] for e in server.events] == ["run-0", "run-1", "run-2"]
    assert (counters.get("events_emitted_total"), counters.get("events_dropped_total")) == (3, 0)


def test_a_503_s_retry_after_stretches_the_backoff(server: RecordingServer) -> None:
    server.fail_with = [(503, {"Retry-After": "1"})]
    emitter, counters = _emitter(_fast_http(server.url))  # its own backoff is at most 0.05 s
    emitter.put(_event(1))
    assert emitter.flush(10)
    assert server.gaps()[0] >= 1.0
    assert counters.get("events_emitted_total") == 1


def test_a_rate_limit_uses_no_retry_and_does_not_mark_the_backend_down(server: RecordingServer) -> None:
    server.fail_with = [(429, {"Retry-After": "0"})] * 6
    sink = _fast_http(server.url, max_retries=1)
    emitter, counters = _emitter(sink)
    emitter.put(_event(1))
    assert emitter.flush(10)
    assert len(server.requests) == 7 and not sink.down
    assert counters.get("events_emitted_total") == 1


def test_a_retry_after_past_the_flush_deadline_gives_up_at_the_deadline_and_spills(
    server: RecordingServer, tmp_path: Path
) -> None:
    server.fail_with = [(429, {"Retry-After": "30"})] * 3
    spill = tmp_path / "spill.jsonl"
    sink = _fast_http(server.url)
    emitter, counters = _emitter(sink, spill=FileSink(str(spill)))
    emitter.put(_event(1))
    started = time.monotonic()
    emitter.close(1.0)
    assert time.monotonic() - started < 3.0
    assert len(server.requests) == 1, "not sent again before the Retry-After"
    assert [e["run"]["runId"] for e in read_events(spill)] == ["run-1"]
    assert counters.get("events_spilled_total") == 1 and not sink.down


def test_retry_after_is_read_as_seconds_or_as_a_date() -> None:
    assert retry_after_seconds("7") == 7.0
    assert retry_after_seconds(" 0 ") == 0.0
    assert retry_after_seconds("Wed, 21 Oct 2026 07:28:10 GMT", now=1792567680.0) == 10.0
    assert retry_after_seconds("Wed, 21 Oct 2026 07:28:00 GMT", now=1792567700.0) == 0.0  # already past
    assert retry_after_seconds(None) is None
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds("-5") is None


def test_after_an_outage_each_batch_gets_one_attempt_until_the_backend_is_back(
    server: RecordingServer,
) -> None:
    server.fail_with = [503] * 3
    sink = _fast_http(server.url, max_retries=2)
    emitter, counters = _emitter(sink)
    emitter.put(_event(1))
    emitter.flush(5)
    assert sink.down and len(server.requests) == 3
    server.fail_with = [503]
    emitter.put(_event(2))
    emitter.flush(5)
    assert len(server.requests) == 4  # a single attempt while down
    emitter.put(_event(3))
    emitter.flush(5)
    assert not sink.down
    assert (counters.get("events_emitted_total"), counters.get("events_dropped_total")) == (1, 2)


def test_a_full_queue_drops_instead_of_blocking(tmp_path: Path) -> None:
    release = threading.Event()

    class Stuck:
        """A backend that does not answer until the test releases it."""

        def send(self, batch: list[Any], deadline: Any) -> Any:
            release.wait(30)
            return FileSink(str(tmp_path / "stuck.jsonl")).send(batch, deadline)

    emitter, counters = _emitter(Stuck(), capacity=2, batch_size=1)
    producer = threading.Thread(target=lambda: [emitter.put(_event(i)) for i in range(10)])
    producer.start()
    producer.join(10)  # every put returns while the backend is still stuck: none of them waits for it
    assert not producer.is_alive(), "put blocked on a stuck backend"
    release.set()
    emitter.close(5)
    snapshot = counters.snapshot()
    assert snapshot["events_dropped_total"] >= 7
    assert snapshot["events_emitted_total"] + snapshot["events_dropped_total"] == 10


def test_the_file_transport_rotates_by_size(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    sink = FileSink(str(path), max_bytes=500, backups=2)
    line = len(json.dumps(_event(0), separators=(",", ":"))) + 1
    for i in range(12):
        sink.write([_event(i)])
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["lineage.jsonl", "lineage.jsonl.1", "lineage.jsonl.2"]
    assert all(p.stat().st_size <= 500 for p in tmp_path.iterdir())
    per_file = 500 // line
    newest = [e["run"]["runId"] for e in read_events(path)]
    assert newest == [f"run-{i}" for i in range(12 - len(newest), 12)]
    assert len(read_events(tmp_path / "lineage.jsonl.1")) == per_file


def test_no_destination_drops_and_counts() -> None:
    emitter, counters = _emitter(None)
    emitter.put(_event(1))
    emitter.close(1)
    assert counters.get("events_dropped_total") == 1
