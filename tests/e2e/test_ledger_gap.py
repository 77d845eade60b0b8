"""End to end: the example pipeline's agent writes chained, signed events to a file; one line is deleted before
the file is shipped, and the ledger shows that producer's gap with its seq range."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from lineage_app.signatures.models import ProducerKey
from lineage_protocol import generate_private_key, private_key_pem, public_key_pem, read_signature
from tests.conftest import ROOT

pytestmark = [pytest.mark.spark, pytest.mark.django_db(transaction=True)]


def test_a_line_deleted_from_the_agents_file_shows_as_the_producers_gap(  # type: ignore[no-untyped-def]
    graph, live_server, ingest_token, read_client: APIClient, tmp_path: Path
):
    key = generate_private_key()
    key_path = tmp_path / "agent.key"
    key_path.write_text(private_key_pem(key))
    ProducerKey.objects.create(producer="example pipeline", public_key=public_key_pem(key.public_key()))
    outbox = tmp_path / "outbox"
    outbox.mkdir()
    env = {
        **os.environ,
        "TRIBUTARY_TRANSPORT": "file",
        "TRIBUTARY_FILE_PATH": str(outbox / "events.jsonl"),
        "TRIBUTARY_SIGNING_KEY": str(key_path),
    }
    env.pop("TRIBUTARY_URL", None)
    finished = subprocess.run(
        [sys.executable, "-m", "examples.pipeline", "--data-dir", str(tmp_path / "data")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert finished.returncode == 0, finished.stderr[-3000:]

    # Delete the line of the third event of the first application's stream.
    path = outbox / "events.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    chains = [read_signature(json.loads(line)).chain for line in lines]
    stream = next(c.stream for c in chains if c is not None)
    (victim,) = [i for i, c in enumerate(chains) if c is not None and (c.stream, c.seq) == (stream, 3)]
    path.write_bytes(b"".join(lines[:victim] + lines[victim + 1 :]))

    shipped = subprocess.run(
        [sys.executable, "-m", "lineage_relay.ship", str(outbox), "--url", live_server.url, "--token", ingest_token],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shipped.returncode == 0, shipped.stderr
    assert LineageEvent.objects.count() == len(lines) - 1
    events_apply(event_ids=list(LineageEvent.objects.order_by("event_time").values_list("id", flat=True)))
    assert set(LineageEvent.objects.values_list("verification", flat=True)) == {"VERIFIED"}

    answer = read_client.get("/api/v1/ledger/streams", {"producer": "example pipeline"}).json()
    by_stream = {row["stream"]: row for row in answer["results"]}
    assert len(by_stream) == 7, "one stream per application"
    gapped = by_stream.pop(stream)
    assert (gapped["state"], [(g["from"], g["to"]) for g in gapped["gaps"]]) == ("gap", [(3, 3)])
    assert {row["state"] for row in by_stream.values()} == {"contiguous"}
    assert answer["unchained"] == []
