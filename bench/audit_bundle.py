"""Audit-bundle benchmark: write a bundle of 100,000 signed chained events and time its offline verification.

The events are signed with `lineage_protocol` (ten streams of one producer key, a heartbeat closing each) and
stored through the accept service's insert (`events_insert`: the event log and the transparency log, as an
accept stores them; no HTTP, no worker), in a private SQLite database. A checkpoint is signed, the real
writer (`audit_bundle_write`) writes the bundle, and `bundle_verify` (what `python -m spark_agent audit verify`
runs) verifies it `--rounds` times. It prints the write time, the bundle's size, the verification rate in
events/s (the median of the rounds), and the process's peak memory after each step.

    .venv/bin/python bench/audit_bundle.py [--events 100000] [--streams 10] [--rounds 3] [--gzip]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BATCH = 1000


def _event(n: int) -> dict[str, Any]:
    at = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=n)
    return {
        "eventType": "COMPLETE",
        "eventTime": at.isoformat().replace("+00:00", "Z"),
        "producer": "https://example.com/bench/audit",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid5(uuid.NAMESPACE_URL, f"bench-audit/{n}")), "facets": {}},
        "job": {"namespace": "bench", "name": f"job_{n % 500}", "facets": {}},
        "inputs": [{"namespace": "s3://lake", "name": f"raw/table_{n % 200}", "facets": {}}],
        "outputs": [{"namespace": "s3://lake", "name": f"clean/table_{n % 200}", "facets": {}}],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100_000, help="events in the bundle, heartbeats included")
    parser.add_argument("--streams", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--gzip", action="store_true", help="write and verify a .gz bundle")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-audit-") as tmp:
        run(args, Path(tmp))


def run(args: argparse.Namespace, tmp: Path) -> None:
    os.environ.update(
        {
            "TRIBUTARY_VAR_DIR": str(tmp),
            "DATABASE_URL": f"sqlite:///{tmp}/audit.sqlite3",
            "DJANGO_SETTINGS_MODULE": "lineage_app.settings",
            "LEDGER_ORIGIN": "bench.tributary/log",
            "LOG_LEVEL": "WARNING",
        }
    )
    import django

    django.setup()
    from django.core.management import call_command

    from lineage_app.ingest.audit_bundle import AuditSelection, audit_bundle_write
    from lineage_app.ingest.services import events_insert
    from lineage_app.ingest.validation import event_check
    from lineage_app.ledger.checkpoints import checkpoint_sign
    from lineage_app.signatures.models import ProducerKey
    from lineage_protocol import StreamChain, bundle_verify, generate_private_key, public_key_pem

    call_command("migrate", verbosity=0)
    key = generate_private_key()
    ProducerKey.objects.create(producer="bench", public_key=public_key_pem(key.public_key()))
    per_stream = args.events // args.streams - 1  # each stream ends with its heartbeat
    started = time.perf_counter()
    pending: list[tuple[Any, bytes, None]] = []

    def store(event: dict[str, Any]) -> None:
        pending.append((event_check(event), json.dumps(event).encode(), None))
        if len(pending) == BATCH:
            events_insert(rows=pending)
            pending.clear()

    for s in range(args.streams):
        chain = StreamChain(key, f"bench:{s}")
        for n in range(per_stream):
            store(chain.sign(_event(s * per_stream + n)))
        store(chain.heartbeat(namespace="bench"))
    if pending:
        events_insert(rows=pending)
    total = args.streams * (per_stream + 1)
    print(f"signed and stored {total:,} events in {time.perf_counter() - started:.1f} s; {_peak()}")
    checkpoint_sign()

    path = tmp / ("bundle.jsonl.gz" if args.gzip else "bundle.jsonl")
    started = time.perf_counter()
    with gzip.GzipFile(path, "wb", mtime=0) if args.gzip else path.open("wb") as target:
        written = audit_bundle_write(selection=AuditSelection(), write=target.write)
    wrote = time.perf_counter() - started
    assert written.events == total
    print(
        f"wrote the bundle in {wrote:.1f} s ({total / wrote:,.0f} events/s), "
        f"{path.stat().st_size / 1e6:.1f} MB{' gzip' if args.gzip else ''}; {_peak()}"
    )
    rates = []
    for n in range(1, args.rounds + 1):
        started = time.perf_counter()
        report = bundle_verify(path)
        elapsed = time.perf_counter() - started
        assert report.ok and report.events == total, report.summary()["problems"]
        rates.append(total / elapsed)
        print(f"round {n}: verified {total:,} events in {elapsed:.1f} s: {total / elapsed:,.0f} events/s")
    print(f"verification: median {statistics.median(rates):,.0f} events/s over {args.rounds} rounds; {_peak()}")


def _peak() -> str:
    """The process's peak resident memory so far: the writer and the verifier stream, so it should barely grow."""
    return f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"


if __name__ == "__main__":
    main()
