"""Nothing the relay accepted is lost or doubled: not when it is killed mid-stream, not while the server is away."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lineage_app.ingest.models import LineageEvent
from tests.conftest import wait_until
from tests.events import new_run_id, run_event
from tests.relay.conftest import Cable, EventKey, Producer, RelayProcess, post_json

pytestmark = pytest.mark.django_db(transaction=True)

OUTAGE_S = 60  # how long the server is away: a minute, as a restart or a network change takes


def _stored() -> Counter[EventKey]:
    """The producers' events stored (not the relay's own heartbeats)."""
    rows = LineageEvent.objects.exclude(kind=LineageEvent.Kind.HEARTBEAT).values_list("run_id", "event_type", "payload")
    return Counter((run_id, kind, payload["eventTime"]) for run_id, kind, payload in rows)


def test_every_accepted_event_arrives_once_through_a_kill_and_a_server_outage(  # type: ignore[no-untyped-def]
    live_server, ingest_token, cable: Cable, relay_key: tuple[Ed25519PrivateKey, Path], tmp_path: Path
):
    # No periodic heartbeat during the test, so the counters below count the producer's events alone.
    relay = RelayProcess(
        tmp_path,
        key_path=relay_key[1],
        server_url=cable.url,
        token=ingest_token,
        extra=["--heartbeat-seconds", "3600"],
    )
    relay.start()
    producer = Producer(relay.url)
    producer.start()
    try:
        wait_until(lambda: len(producer.accepted) >= 40, timeout=30, what="a stream of events")
        relay.kill()
        time.sleep(0.5)
        relay.start()  # the same buffer: what was accepted before the kill is still pending
        wait_until(lambda: len(producer.accepted) >= 80, timeout=30, what="the stream to resume")

        cable.unplug()
        outage_starts = len(producer.accepted)
        time.sleep(OUTAGE_S)
        during_outage = len(producer.accepted) - outage_starts
        health = relay.health()
        assert health["server"]["reachable"] is False, health
        assert health["backlog"]["events"] > 0, health
        cable.plug()
        time.sleep(1)
    finally:
        producer.stop()
    assert during_outage > 100, "the producer was never blocked while the server was away"

    accepted = Counter(producer.accepted)
    wait_until(lambda: relay.metrics()["lineage_relay_backlog_events"] == 0, timeout=120, what="the buffer to drain")
    metrics = relay.metrics()
    assert relay.terminate() == 0, relay.logs()
    assert set(accepted.values()) == {1}
    assert _stored() == accepted, "every accepted event is stored, once"
    # Retried after the kill, an event may have been buffered twice: the server answers the second as a duplicate.
    copies = metrics["lineage_events_received_total"] - len(accepted)
    assert 0 <= copies <= 1
    assert metrics["lineage_events_forwarded_total"] == metrics["lineage_events_received_total"]
    assert metrics["lineage_events_rejected_total"] == 0
    assert "the server at" in relay.logs() and "answers again" in relay.logs()


def test_sigterm_finishes_cleanly_and_the_next_start_forwards_what_was_left(  # type: ignore[no-untyped-def]
    live_server, ingest_token, cable: Cable, relay_key: tuple[Ed25519PrivateKey, Path], tmp_path: Path
):
    relay = RelayProcess(tmp_path, key_path=relay_key[1], server_url=cable.url, token=ingest_token)
    cable.unplug()
    relay.start()
    events = [run_event("START", run_id=new_run_id()) for _ in range(25)]
    status, answer = post_json(f"{relay.url}/api/v1/lineage/batch", events)
    assert (status, answer["status"], answer["summary"]["successful"]) == (200, "success", 25)
    assert relay.terminate() == 0
    assert "26 events stay buffered" in relay.logs()  # the 25, and the relay's last heartbeat

    cable.plug()
    relay.start()
    wait_until(lambda: relay.metrics()["lineage_relay_backlog_events"] == 0, timeout=30, what="the buffer to drain")
    assert relay.terminate() == 0
    produced = LineageEvent.objects.exclude(kind=LineageEvent.Kind.HEARTBEAT)
    assert sorted(produced.values_list("run_id", flat=True)) == sorted(e["run"]["runId"] for e in events)
    # Forwarded in arrival order, in one batch: the server stored them in the order they were posted.
    assert list(produced.order_by("id").values_list("run_id", flat=True)) == [e["run"]["runId"] for e in events]
