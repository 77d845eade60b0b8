"""The relay waits as long as the server's `Retry-After` asks (a 429: its token's rate limit) before forwarding
again, sends again what a receipt names retriable, and loses nothing meanwhile."""

from __future__ import annotations

from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.conftest import wait_until
from tests.events import new_run_id, run_event
from tests.recording_server import RecordingServer
from tests.relay.conftest import RelayProcess, post_json


def test_a_429_s_retry_after_is_waited_for_and_every_event_is_forwarded(
    relay_key: tuple[Ed25519PrivateKey, Path], tmp_path: Path
) -> None:
    server = RecordingServer()
    server.fail_with = [(429, {"Retry-After": "2"})]
    # The relay's own back-off is at most 1 s (--retry-max-seconds 1): only the Retry-After makes it wait 2.
    relay = RelayProcess(tmp_path, key_path=relay_key[1], server_url=server.url, token="relay-token")
    relay.start()
    try:
        run_ids = [new_run_id() for _ in range(5)]
        for run_id in run_ids:
            assert post_json(f"{relay.url}/api/v1/lineage", run_event("START", run_id=run_id))[0] == 201
        wait_until(lambda: len(server.events) == 5, timeout=30, what="every event forwarded")
        wait_until(lambda: relay.health()["backlog"]["events"] == 0, timeout=10, what="the buffer emptied")
    finally:
        relay.terminate()
        server.stop()
    assert server.gaps()[0] >= 2.0, "forwarded again before the Retry-After had passed"
    assert sorted(event["run"]["runId"] for event in server.events) == sorted(run_ids)
    assert all(request["headers"]["Authorization"] == "Bearer relay-token" for request in server.requests)


def test_events_a_receipt_names_retriable_stay_buffered_and_are_forwarded_again(
    relay_key: tuple[Ed25519PrivateKey, Path], tmp_path: Path
) -> None:
    server = RecordingServer()
    server.retry_indexes = {0}  # the first event of the first batch: the server could not take it for now
    relay = RelayProcess(tmp_path, key_path=relay_key[1], server_url=server.url, token="relay-token")
    relay.start()
    try:
        run_ids = [new_run_id() for _ in range(3)]
        for run_id in run_ids:
            assert post_json(f"{relay.url}/api/v1/lineage", run_event("START", run_id=run_id))[0] == 201
        wait_until(lambda: relay.health()["backlog"]["events"] == 0, timeout=30, what="the buffer emptied")
        metrics = relay.metrics()
    finally:
        relay.terminate()
        server.stop()
    sent = [event["run"]["runId"] for event in server.events]
    assert sorted(set(sent)) == sorted(run_ids)
    assert sent.count(server.batches[0][0]["run"]["runId"]) == 2, "the retriable event was not sent again"
    assert (metrics["lineage_events_forwarded_total"], metrics["lineage_events_rejected_total"]) == (3, 0)
