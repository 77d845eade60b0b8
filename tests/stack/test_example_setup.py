"""The example under `run_stack`: its key made once and registered through the service, its report in a few lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.exceptions import ValidationError

from lineage_app.signatures.models import ProducerKey
from lineage_app.signatures.services import producer_key_register
from lineage_app.stack.example import EXAMPLE_PRODUCER, ExampleReport, example_signing_key
from lineage_protocol import key_id, load_private_key


@pytest.mark.django_db
def test_the_example_key_is_made_once_and_registered_once(tmp_path: Path) -> None:
    private, key = example_signing_key(keys_dir=tmp_path / "keys")
    assert key.key_id == key_id(load_private_key(private).public_key())
    assert (key.producer, key.namespaces) == (EXAMPLE_PRODUCER, {"spark"})
    again_private, again = example_signing_key(keys_dir=tmp_path / "keys")
    assert (again_private, again.pk) == (private, key.pk)
    assert ProducerKey.objects.count() == 1


@pytest.mark.django_db
def test_a_key_registered_for_one_producer_cannot_be_registered_for_another(tmp_path: Path) -> None:
    _, key = example_signing_key(keys_dir=tmp_path / "keys")
    with pytest.raises(ValidationError, match="already registered for producer 'tributary-example-pipeline'"):
        producer_key_register(producer="someone-else", public_key=key.public_key)
    with pytest.raises(ValidationError, match="Ed25519 public key"):
        producer_key_register(producer="someone-else", public_key="not a key")


def test_the_report_gives_one_line_per_job_and_counts_what_the_agent_sent() -> None:
    shown: list[str] = []
    report = ExampleReport(write=shown.append)
    for line in [
        "tributary: ingest_orders run 01a1 COMPLETE: events_emitted_total=4 events_dropped_total=0 "
        "events_spilled_total=0",
        "[pipeline] ingest_orders: ok",
        "26/11/23 20:36:56 ERROR SomeSparkClass: noise that stays in example.log",
        "tributary: validate_orders run 01a2 FAIL: events_emitted_total=3 events_dropped_total=1 "
        "events_spilled_total=0",
        "[pipeline] validate_orders: failed as designed: java.lang.RuntimeException: negative amount in order 250",
    ]:
        report.line(line)
    assert shown == [
        "  ✓ ingest_orders",
        "  ✗ validate_orders — failed as designed: java.lang.RuntimeException: negative amount in order 250",
    ]
    url = "http://127.0.0.1:8000/lineage?nodeId=job:spark:daily_revenue"
    assert report.summary(returncode=0, lineage_url=url, log="var/log/example.log") == (
        f"Example pipeline: 2 runs, 7 events sent, 1 dropped (see var/log/example.log); lineage at {url}"
    )
    assert report.summary(returncode=1, lineage_url=url, log="var/log/example.log") == (
        "Example pipeline: exited with status 1; see var/log/example.log"
    )
    clean = ExampleReport(write=shown.append)
    clean.line("tributary: a run 1 COMPLETE: events_emitted_total=4 events_dropped_total=0 events_spilled_total=0")
    assert clean.summary(returncode=0, lineage_url=url, log="x") == f"Example pipeline: 1 run sent, lineage at {url}"
