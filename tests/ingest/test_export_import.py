"""The event log leaves and enters an installation as JSON Lines: export, import into a fresh one, the same graph."""

from __future__ import annotations

import gzip
import json
import sqlite3
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command

from lineage_app.graph.writer import graph_wipe
from lineage_app.ingest.models import LineageEvent
from lineage_app.signatures.models import ProducerKey, SignaturePolicy
from lineage_protocol import VerificationStatus, generate_private_key, public_key_pem, sign_event
from tests.apply import accept_and_apply, as_json
from tests.conftest import ROOT, graph_env
from tests.events import new_run_id, run_event, run_lifecycle
from tests.graph.test_order_independence import SCENARIO
from tests.graph_dump import graph_dump

pytestmark = pytest.mark.django_db


def _compact(event: dict[str, Any]) -> bytes:
    return json.dumps(event, separators=(",", ":")).encode()


def _export(path: Path, *args: str) -> Path:
    err = StringIO()
    call_command("export_events", "-o", str(path), *args, stderr=err)
    assert err.getvalue().startswith("exported ")
    return path


def _import(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("import_events", *args, stdout=out, stderr=err)
    return out.getvalue().strip(), err.getvalue()


class OtherInstallation:
    """A second Tributary: its own SQLite database and var dir, on the test session's graph engine."""

    def __init__(self, tmp: Path) -> None:
        self.database = tmp / "other.sqlite3"
        self.env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "DATABASE_URL": f"sqlite:///{self.database}",
            "TRIBUTARY_VAR_DIR": str(tmp / "var"),
            "REDIS_URL": settings.CELERY_BROKER_URL,
            **graph_env(),
        }

    def manage(self, *argv: str) -> str:
        done = subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), *argv], cwd=ROOT, env=self.env, capture_output=True, timeout=120
        )
        assert done.returncode == 0, done.stderr.decode()
        return done.stdout.decode().strip()

    def logged(self) -> dict[str, tuple[bytes, str]]:
        """Each logged event's raw bytes and status, by content hash."""
        with sqlite3.connect(self.database) as db:
            rows = db.execute(f"SELECT content_hash, raw, status FROM {LineageEvent._meta.db_table}").fetchall()
        return {content_hash: (bytes(raw), status) for content_hash, raw, status in rows}


def test_an_exported_log_imported_into_a_fresh_installation_gives_the_same_graph(graph, tmp_path):  # type: ignore[no-untyped-def]
    # One event posted pretty-printed: its line breaks must survive the trip byte for byte.
    accept_and_apply(*SCENARIO, raw=lambda e: json.dumps(e, indent=2).encode() if e is SCENARIO[0] else as_json(e))
    original = graph_dump()
    exported = _export(tmp_path / "log.jsonl.gz")
    assert len(gzip.decompress(exported.read_bytes()).splitlines()) == len(SCENARIO)

    graph_wipe()
    other = OtherInstallation(tmp_path)
    other.manage("migrate", "--no-input", "-v", "0")
    out = other.manage("import_events", "--apply", str(exported))
    n = len(SCENARIO)
    assert out == f"imported {n} line(s): {n} new, 0 already in the log, 0 rejected, {n} applied, 0 torn"
    assert graph_dump() == original
    here = {e.content_hash: (bytes(e.raw), e.status) for e in LineageEvent.objects.all()}
    assert other.logged() == here  # the bytes as first accepted, every one applied

    again = other.manage("import_events", "--apply", str(exported))
    assert f"0 new, {len(SCENARIO)} already in the log" in again
    assert other.logged() == here
    assert graph_dump() == original


def test_export_filters_by_status_and_namespace(graph, tmp_path):  # type: ignore[no-untyped-def]
    [first, second] = accept_and_apply(
        run_event("COMPLETE", run_id=new_run_id(), namespace="sales"),
        run_event("COMPLETE", run_id=new_run_id(), namespace="hr"),
        raw=_compact,
    )
    LineageEvent.objects.filter(id=second).update(status=LineageEvent.Status.FAILED)

    def hashes(*args: str) -> set[str]:
        path = _export(tmp_path / "part.jsonl", *args)
        return {json.loads(line)["contentHash"] for line in path.read_bytes().splitlines()}

    by_id = dict(LineageEvent.objects.values_list("id", "content_hash"))
    assert hashes("--namespace", "sales") == {by_id[first]}
    assert hashes("--status", "failed") == {by_id[second]}
    assert hashes("--until", "2000-01-01T00:00:00Z") == set()


def test_signatures_are_verified_again_on_import_and_a_tampered_event_is_quarantined(graph, tmp_path):  # type: ignore[no-untyped-def]
    key = generate_private_key()
    ProducerKey.objects.create(producer="spark-etl", public_key=public_key_pem(key.public_key()))
    SignaturePolicy.objects.create(namespace="spark", mode=SignaturePolicy.Mode.ENFORCE)
    events = [sign_event(e, key) for e in run_lifecycle()]
    accept_and_apply(*events, raw=_compact)
    assert set(LineageEvent.objects.values_list("verification", flat=True)) == {VerificationStatus.VERIFIED}
    exported = _export(tmp_path / "log.jsonl")

    # Give the START event the COMPLETE event's signature: well-formed, but not over these bytes.
    records = [json.loads(line) for line in exported.read_bytes().splitlines()]
    tampered = json.loads(records[0]["raw"])
    signature = json.loads(records[2]["raw"])["run"]["facets"]["tributary_signature"]["signature"]
    tampered["run"]["facets"]["tributary_signature"]["signature"] = signature
    records[0]["raw"] = json.dumps(tampered)
    exported.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records))

    LineageEvent.objects.all().delete()
    graph_wipe()
    out, _ = _import("--apply", str(exported))
    assert out == "imported 3 line(s): 3 new, 0 already in the log, 0 rejected, 2 applied, 0 torn"
    rows = {e.event_type: e for e in LineageEvent.objects.all()}
    assert (rows["START"].verification, rows["START"].status) == (
        VerificationStatus.INVALID_SIGNATURE,
        LineageEvent.Status.QUARANTINED,
    )
    assert {(rows[t].verification, rows[t].status) for t in ("RUNNING", "COMPLETE")} == {
        (VerificationStatus.VERIFIED, LineageEvent.Status.APPLIED)
    }


def test_without_apply_imported_events_wait_pending_and_a_later_apply_import_applies_them(graph, tmp_path):  # type: ignore[no-untyped-def]
    path = tmp_path / "agent.jsonl"
    path.write_bytes(b"".join(json.dumps(e).encode() + b"\n" for e in run_lifecycle()))
    out, _ = _import(str(path))
    assert out == "imported 3 line(s): 3 new, 0 already in the log, 0 rejected, 0 torn"
    assert set(LineageEvent.objects.values_list("status", flat=True)) == {LineageEvent.Status.PENDING}
    assert graph_dump() == []

    out, _ = _import("--apply", str(path))
    assert out == "imported 3 line(s): 0 new, 3 already in the log, 0 rejected, 3 applied, 0 torn"
    assert set(LineageEvent.objects.values_list("status", flat=True)) == {LineageEvent.Status.APPLIED}
    assert graph_dump() != []


def test_a_plain_agent_file_with_a_bad_line_and_a_torn_last_line_imports_the_rest(graph, tmp_path):  # type: ignore[no-untyped-def]
    start, running, complete = (json.dumps(e, separators=(",", ":")).encode() for e in run_lifecycle())
    path = tmp_path / "lineage.jsonl"
    invalid = json.dumps({"eventType": "START", "eventTime": "yesterday"}).encode()
    path.write_bytes(start + b"\n" + b"{not json\n" + invalid + b"\n" + running + b"\n" + complete[:40])

    out, err = _import("--apply", str(path))
    assert out == "imported 4 line(s): 2 new, 0 already in the log, 2 rejected, 2 applied, 1 torn"
    assert f"{path}:2: malformed JSON" in err
    assert f"{path}:3: " in err
    assert f"{path}:5: torn last line" in err

    # The writer finishes its line: the next import takes it, and everything else is a free duplicate.
    with path.open("ab") as handle:
        handle.write(complete[40:] + b"\n")
    out, _ = _import("--apply", str(path))
    assert out == "imported 5 line(s): 1 new, 2 already in the log, 2 rejected, 1 applied, 0 torn"
    assert LineageEvent.objects.filter(status=LineageEvent.Status.APPLIED).count() == 3
