"""A full buffer refuses new events with 503 (the producer's own retry or spill applies) and counts them."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lineage_protocol import StreamChain
from lineage_relay.buffer import EventBuffer
from lineage_relay.forwarder import Forwarder, ServerClient, ServerStatus
from lineage_relay.server import Relay, RelayHttpServer
from tests.conftest import free_port
from tests.events import dataset, new_run_id, run_event
from tests.relay.conftest import RelayProcess, http_call, metrics_of, post_json

NOWHERE = f"http://127.0.0.1:{free_port()}"  # nothing listens there: the server is down throughout


def _event(padding: int) -> dict[str, object]:
    return run_event("START", run_id=new_run_id(), inputs=[dataset("file", "x" * padding)])


def test_events_past_max_buffer_bytes_are_refused_with_503_and_counted(
    relay_key: tuple[Ed25519PrivateKey, Path], tmp_path: Path
) -> None:
    relay = RelayProcess(
        tmp_path, key_path=relay_key[1], server_url=NOWHERE, token="t", extra=["--max-buffer-bytes", "10000"]
    )
    relay.start()
    try:
        answers = [post_json(f"{relay.url}/api/v1/lineage", _event(1000))[0] for _ in range(12)]
        accepted = answers.count(201)
        assert 5 <= accepted < 12 and answers == [201] * accepted + [503] * (12 - accepted), answers
        status, raw = http_call(
            f"{relay.url}/api/v1/lineage/batch",
            body=json.dumps([_event(10), _event(10)]).encode(),
            headers={"Content-Type": "application/json"},
        )
        answer = json.loads(raw)
        assert (status, answer["error"]) == (503, "buffer_full"), answer
        assert "10000 bytes" in answer["message"]
        metrics = relay.metrics()
    finally:
        assert relay.terminate() == 0
    assert metrics['lineage_events_dropped_total{reason="buffer_full"}'] == 12 - accepted + 2
    assert metrics["lineage_events_received_total"] == metrics["lineage_relay_backlog_events"] == accepted
    assert "refused 1 event(s) (buffer_full)" in relay.logs()


@pytest.fixture
def relay_in_process(relay_key: tuple[Ed25519PrivateKey, Path], tmp_path: Path) -> Iterator[tuple[str, EventBuffer]]:
    """The relay's parts in this process, so the test can lower SQLite's own page limit on the buffer's
    connection (`PRAGMA max_page_count` lasts only for the connection that sets it)."""
    buffer = EventBuffer(path=tmp_path / "buffer.sqlite3", max_bytes=2**30, keep_rejected=10)
    status = ServerStatus(url=NOWHERE)
    client = ServerClient(url=NOWHERE, token=None, timeout_s=1)
    forwarder = Forwarder(
        buffer=buffer,
        client=client,
        status=status,
        batch_events=100,
        batch_bytes=2**20,
        backoff_base_s=0.1,
        backoff_max_s=0.5,
    )
    relay = Relay(
        buffer=buffer,
        chain=StreamChain(relay_key[0], "relay:test:1"),
        status=status,
        drain=forwarder,
        max_event_bytes=2**20,
        max_batch_bytes=2**24,
        producer_token=None,
    )
    http = RelayHttpServer(("127.0.0.1", 0), relay)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    forwarder.start()
    yield f"http://127.0.0.1:{http.server_address[1]}", buffer
    http.shutdown()
    http.server_close()
    forwarder.stop(timeout_s=10)
    buffer.close()


def test_sqlite_reporting_the_disk_full_refuses_with_503_and_keeps_what_it_had(
    relay_in_process: tuple[str, EventBuffer],
) -> None:
    url, buffer = relay_in_process
    assert buffer.connection is not None
    pages = buffer.connection.execute("PRAGMA page_count").fetchone()[0]
    buffer.connection.execute(f"PRAGMA max_page_count = {pages + 6}")

    answers = [post_json(f"{url}/api/v1/lineage", _event(3000)) for _ in range(10)]
    statuses = [status for status, _ in answers]
    accepted = statuses.count(201)
    assert 0 < accepted < 10 and statuses == [201] * accepted + [503] * (10 - accepted), statuses
    assert {answer["error"] for status, answer in answers if status == 503} == {"disk_full"}
    assert "database or disk is full" in answers[-1][1]["message"]

    metrics = metrics_of(http_call(f"{url}/metrics")[1].decode())
    assert metrics['lineage_events_dropped_total{reason="disk_full"}'] == 10 - accepted
    assert metrics['lineage_events_dropped_total{reason="buffer_full"}'] == 0
    assert metrics["lineage_relay_backlog_events"] == metrics["lineage_events_received_total"] == accepted

    buffer.connection.execute("PRAGMA max_page_count = 1000000")  # room again: accepted at once
    assert post_json(f"{url}/api/v1/lineage", _event(3000))[0] == 201
    assert buffer.backlog().events == accepted + 1
