"""The relay chains what it signs and announces its head in heartbeats: a withheld tail shows as truncated,
and a restart's stream names the head the buffer kept."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from rest_framework.test import APIClient

from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from lineage_app.signatures.models import ProducerKey
from lineage_protocol import HEARTBEAT_FACET, SIGNATURE_FACET, public_key_pem, signed_hash
from tests.conftest import ROOT, wait_until
from tests.events import new_run_id, run_event
from tests.relay.conftest import RelayProcess, post_json

pytestmark = pytest.mark.django_db(transaction=True)


def _relay(tmp_path: Path, key_path: Path, out: Path, heartbeat_s: str = "3600") -> RelayProcess:
    # Files closed soon, so that what the relay wrote is in visible files.
    extra = ["--output-dir", str(out), "--file-max-seconds", "0.2", "--heartbeat-seconds", heartbeat_s]
    return RelayProcess(tmp_path, key_path=key_path, server_url=None, token=None, extra=extra)


def _heartbeat_seqs(out: Path) -> list[int]:
    return [_facet(e, HEARTBEAT_FACET)["seq"] for _, _, e in _lines(out) if HEARTBEAT_FACET in e["run"]["facets"]]


def _lines(out: Path) -> list[tuple[Path, int, dict]]:
    return [
        (path, number, json.loads(line))
        for path in sorted(out.glob("relay-*.jsonl"))
        for number, line in enumerate(path.read_bytes().splitlines())
    ]


def _facet(event: dict, name: str) -> dict:
    return event["run"]["facets"].get(name) or {}


def test_a_relay_that_withholds_its_tail_shows_truncated_through_its_heartbeat(  # type: ignore[no-untyped-def]
    graph, live_server, ingest_token, read_client: APIClient, relay_key: tuple[Ed25519PrivateKey, Path], tmp_path
):
    key, key_path = relay_key
    ProducerKey.objects.create(producer="site-c relay", public_key=public_key_pem(key.public_key()))
    out = tmp_path / "outbox"
    relay = _relay(tmp_path, key_path, out, heartbeat_s="0.5")
    relay.start()
    status, _ = post_json(
        f"{relay.url}/api/v1/lineage/batch", [run_event("START", run_id=new_run_id()) for _ in range(5)]
    )
    assert status == 200
    wait_until(lambda: 5 in _heartbeat_seqs(out), timeout=30, what="a heartbeat announcing seq 5, in a closed file")
    assert relay.terminate() == 0, relay.logs()

    lines = _lines(out)
    chained = [(path, n, e) for path, n, e in lines if _facet(e, SIGNATURE_FACET).get("seq")]
    heartbeat = next(e for _, _, e in lines if _facet(e, HEARTBEAT_FACET).get("seq") == 5)
    assert [_facet(e, SIGNATURE_FACET)["seq"] for _, _, e in chained] == [1, 2, 3, 4, 5]
    assert (_facet(heartbeat, HEARTBEAT_FACET)["seq"], _facet(heartbeat, HEARTBEAT_FACET)["head"]) == (
        5,
        signed_hash(chained[-1][2]),
    )
    for path, number, _ in reversed(chained[3:]):  # withhold seq 4 and 5, keep the heartbeat
        kept = path.read_bytes().splitlines(keepends=True)
        del kept[number]
        path.write_bytes(b"".join(kept))

    shipped = subprocess.run(
        [sys.executable, "-m", "lineage_relay.ship", str(out), "--url", live_server.url, "--token", ingest_token],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shipped.returncode == 0, shipped.stderr
    events_apply(event_ids=list(LineageEvent.objects.values_list("id", flat=True)))
    assert set(LineageEvent.objects.values_list("status", "verification")) == {("applied", "VERIFIED")}

    (stream,) = read_client.get("/api/v1/ledger/streams", {"producer": "site-c relay"}).json()["results"]
    assert (stream["state"], stream["high"], stream["gaps"]) == ("truncated", 3, [])
    assert (stream["truncated"]["from"], stream["truncated"]["to"]) == (4, 5)


def test_a_restarted_relay_starts_a_new_stream_that_names_the_head_its_buffer_kept(  # type: ignore[no-untyped-def]
    relay_key: tuple[Ed25519PrivateKey, Path], tmp_path: Path
):
    _, key_path = relay_key
    out = tmp_path / "outbox"
    relay = _relay(tmp_path, key_path, out)
    for _ in range(2):
        relay.start()
        assert post_json(f"{relay.url}/api/v1/lineage", run_event("START", run_id=new_run_id()))[0] == 201
        assert relay.terminate() == 0, relay.logs()
    first, second = [e for _, _, e in _lines(out) if _facet(e, SIGNATURE_FACET).get("seq")]
    assert _facet(first, SIGNATURE_FACET)["stream"] != _facet(second, SIGNATURE_FACET)["stream"]
    assert _facet(second, SIGNATURE_FACET)["seq"] == 1
    assert _facet(second, SIGNATURE_FACET)["prev"] == signed_hash(first)
