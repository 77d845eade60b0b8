"""An unchanged OpenLineage client posts to the relay; the relay signs and forwards; the events land verified."""

from __future__ import annotations

import http.client
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from openlineage.client import OpenLineageClient
from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.transport.http import ApiKeyTokenProvider, HttpCompression, HttpConfig, HttpTransport

from lineage_app.explorer.selectors.jobs_and_runs import run_for_id
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from lineage_app.signatures.models import ProducerKey, SignaturePolicy
from lineage_protocol import key_id, public_key_pem, sign_event
from tests.conftest import wait_until
from tests.events import new_run_id, run_event
from tests.relay.conftest import RelayProcess, post_json

pytestmark = pytest.mark.django_db(transaction=True)

PRODUCER = "https://example.com/tests/an-airflow-like-producer"
PRODUCER_TOKEN = "token-the-producers-send"


def _client(relay_url: str, *, compression: HttpCompression | None = None) -> OpenLineageClient:
    config = HttpConfig(
        url=relay_url,
        auth=ApiKeyTokenProvider({"api_key": PRODUCER_TOKEN}),
        compression=compression,
        retry={"total": 0},
    )
    return OpenLineageClient(transport=HttpTransport(config))


def _runs(count: int) -> list[RunEvent]:
    """START and COMPLETE of `count` runs of a job in the `airflow` namespace reading one table, writing another."""
    events = []
    for n in range(count):
        run = Run(runId=str(uuid.uuid4()))
        job = Job(namespace="airflow", name=f"dag_{n}.load_orders")
        inputs = [InputDataset(namespace="postgres://db:5432", name="public.orders")]
        outputs = [OutputDataset(namespace="s3://lake", name=f"clean/orders_{n}")]
        for state, minute in ((RunState.START, 0), (RunState.COMPLETE, 5)):
            events.append(
                RunEvent(
                    eventType=state,
                    eventTime=f"2026-01-05T08:{minute:02d}:{n:02d}Z",
                    producer=PRODUCER,
                    run=run,
                    job=job,
                    inputs=inputs,
                    outputs=outputs,
                )
            )
    return events


def test_an_unchanged_openlineage_client_lands_verified_through_the_relay(  # type: ignore[no-untyped-def]
    graph, live_server, ingest_token, relay_key: tuple[Ed25519PrivateKey, Path], tmp_path: Path
):
    key, key_path = relay_key
    ProducerKey.objects.create(producer="node-7 relay", public_key=public_key_pem(key.public_key()))
    SignaturePolicy.objects.create(namespace="airflow", mode=SignaturePolicy.Mode.ENFORCE)
    relay = RelayProcess(
        tmp_path,
        key_path=key_path,
        server_url=live_server.url,
        token=ingest_token,
        extra=["--producer-token", PRODUCER_TOKEN],
    )
    relay.start()
    try:
        events = _runs(6)
        plain, gzipped = _client(relay.url), _client(relay.url, compression=HttpCompression.GZIP)
        for n, event in enumerate(events):
            (gzipped if n % 2 else plain).emit(event)
        wait_until(
            lambda: relay.metrics()["lineage_events_forwarded_total"] == len(events), timeout=30, what="forwarding"
        )
        assert relay.metrics()["lineage_relay_backlog_events"] == 0
        assert LineageEvent.objects.count() == len(events)
    finally:
        assert relay.terminate() == 0, relay.logs()

    ids = list(LineageEvent.objects.order_by("event_time").values_list("id", flat=True))
    events_apply(event_ids=ids)
    stored = list(LineageEvent.objects.all())
    assert {(e.status, e.verification) for e in stored} == {("applied", "VERIFIED")}, relay.logs()
    signer = key_id(key.public_key())
    assert {e.payload["run"]["facets"]["tributary_signature"]["keyId"] for e in stored} == {signer}
    assert {e.payload["producer"] for e in stored} == {PRODUCER}, "the producer's own fields are kept"
    assert run_for_id(run_id=str(events[0].run.runId))["verification"] == "VERIFIED"


def test_an_event_signed_at_its_source_is_forwarded_untouched(  # type: ignore[no-untyped-def]
    live_server, ingest_token, relay_key: tuple[Ed25519PrivateKey, Path], tmp_path: Path
):
    relay_signer, key_path = relay_key
    source = Ed25519PrivateKey.generate()
    signed_at_source = sign_event(run_event("START", run_id=new_run_id()), source)
    unsigned = run_event("START", run_id=new_run_id())
    relay = RelayProcess(tmp_path, key_path=key_path, server_url=live_server.url, token=ingest_token)
    relay.start()
    try:
        status, answer = post_json(f"{relay.url}/api/v1/lineage/batch", [signed_at_source, unsigned])
        assert (status, answer["status"], answer["summary"]["successful"]) == (200, "success", 2), answer
        wait_until(lambda: relay.metrics()["lineage_events_forwarded_total"] == 2, timeout=30, what="forwarding")
    finally:
        relay.terminate()

    def signer_of(event: dict[str, Any]) -> str:
        stored = LineageEvent.objects.get(run_id=event["run"]["runId"])
        return str(stored.payload["run"]["facets"]["tributary_signature"]["keyId"])

    assert signer_of(signed_at_source) == key_id(source.public_key()), "not signed twice"
    assert LineageEvent.objects.get(run_id=signed_at_source["run"]["runId"]).payload == signed_at_source
    assert signer_of(unsigned) == key_id(relay_signer.public_key())


def test_producers_without_the_producer_token_are_refused(  # type: ignore[no-untyped-def]
    live_server, ingest_token, relay_key: tuple[Ed25519PrivateKey, Path], tmp_path: Path
):
    relay = RelayProcess(
        tmp_path,
        key_path=relay_key[1],
        server_url=live_server.url,
        token=ingest_token,
        extra=["--producer-token", PRODUCER_TOKEN],
    )
    relay.start()
    try:
        event = run_event("START", run_id=new_run_id())
        assert post_json(f"{relay.url}/api/v1/lineage", event)[0] == 401
        status, answer = post_json(f"{relay.url}/api/v1/lineage", event, token="a guess")
        assert (status, answer["error"]) == (401, "not_authenticated")
        # One kept-alive connection: the refused request's unread body is not taken for the next request.
        connection = http.client.HTTPConnection("127.0.0.1", relay.port, timeout=10)
        body = json.dumps(event).encode()
        for token, expected in (("a guess", 401), (PRODUCER_TOKEN, 201)):
            headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
            connection.request("POST", "/api/v1/lineage", body=body, headers=headers)
            answer = connection.getresponse()
            answer.read()
            assert answer.status == expected
        connection.close()
    finally:
        relay.terminate()
