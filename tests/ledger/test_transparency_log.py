"""The transparency log through real HTTP and a real database: receipts' leaf indexes, checkpoints, proofs
that verify with `lineage_protocol` alone, clear refusals, pruning, and a tampered event log caught."""

from __future__ import annotations

import base64
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.utils import timezone

from lineage_app.ingest.log_check import LogMismatch
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.selectors import event_log_gauges
from lineage_app.ingest.services import events_prune
from lineage_app.ingest.tasks import checkpoint_log
from lineage_app.ledger.checkpoints import checkpoint_sign
from lineage_app.ledger.models import LogKey, LogLeaf, LogPrune
from lineage_app.ledger.proofs import LogTampered
from lineage_app.observability.exposition import metrics_exposition
from lineage_protocol import (
    checkpoint_open,
    event_leaf_hash,
    generate_private_key,
    hash_from_text,
    hashes_from_text,
    note_verify,
    parse_note,
    parse_vkey,
    private_key_pem,
    verify_consistency,
    verify_inclusion,
)
from tests.events import new_run_id, run_event
from tests.ledger.live_api import api_call

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = "lineage.test/log"


@pytest.fixture(autouse=True)
def _log_settings(settings: Any, tmp_path: Path) -> None:
    settings.LEDGER_ORIGIN = ORIGIN
    settings.LEDGER_SIGNING_KEY_PATH = tmp_path / "keys" / "ledger.key"


def _events(count: int) -> list[dict[str, Any]]:
    return [run_event("START", run_id=new_run_id()) for _ in range(count)]


def _verified_checkpoint(answer: dict[str, Any]) -> Any:
    """The checkpoint of an API answer, its note checked with the keys the API lists."""
    return checkpoint_open(
        answer["note"],
        verifiers=[parse_vkey(k["verifierKey"]) for k in answer.get("keys", [])] or _keys(),
        origin=ORIGIN,
    )


def _keys() -> list[Any]:
    return [parse_vkey(key.verifier_key) for key in LogKey.objects.all()]


def test_concurrent_accepts_get_contiguous_leaf_indexes_and_a_duplicate_answers_the_original_index(
    live_server: Any, ingest_token: str
) -> None:
    events = _events(30)
    posts = [("/api/v1/lineage", e) for e in events] + [("/api/v1/lineage/batch", events[i : i + 5]) for i in (0, 12)]
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda p: api_call(live_server.url, ingest_token, *p), posts))
    singles = [body for _, body, _ in answers[:30]]
    items = [item for _, body, _ in answers[30:] for item in body["results"]]
    leaf_of = {}
    for body in singles + items:
        if body["status"] == "accepted":
            leaf_of[body["id"]] = body["leafIndex"]
    assert sorted(leaf_of.values()) == list(range(30))
    for body in singles + items:
        assert body["leafIndex"] == leaf_of[body["id"]]
    again = api_call(live_server.url, ingest_token, "/api/v1/lineage", events[3])[1]
    assert again["status"] == "duplicate" and again["leafIndex"] == leaf_of[again["id"]]
    assert LogLeaf.objects.count() == 30
    for leaf in LogLeaf.objects.all():
        event = LineageEvent.objects.get(id=leaf.event_id)
        assert bytes(leaf.hash) == event_leaf_hash(content_hash=event.content_hash, accepted_at=event.received_at)


def test_an_events_inclusion_proof_by_id_or_content_hash_verifies_against_the_signed_checkpoint(
    live_server: Any, ingest_token: str, read_token: str
) -> None:
    receipts = api_call(live_server.url, ingest_token, "/api/v1/lineage/batch", _events(7))[1]["results"]
    checkpoint_log()
    status, answer, _ = api_call(live_server.url, read_token, "/api/v1/ledger/checkpoint")
    assert status == 200 and answer["treeSize"] == 7 and answer["logSize"] == 7
    signed = _verified_checkpoint(answer)
    assert base64.b64encode(signed.root_hash).decode() == answer["rootHash"]
    event = LineageEvent.objects.get(id=receipts[5]["id"])
    for key in (str(event.id), event.content_hash):
        status, proof, _ = api_call(live_server.url, read_token, f"/api/v1/ledger/proof?event={key}")
        assert status == 200 and proof["leafIndex"] == receipts[5]["leafIndex"]
        leaf = event_leaf_hash(content_hash=event.content_hash, accepted_at=event.received_at)
        assert hash_from_text(proof["leafHash"]) == leaf
        # What docs/ledger.md tells an auditor to do: the leaf again from the proof's own acceptance time.
        accepted = datetime.fromisoformat(proof["acceptedAt"])
        assert event_leaf_hash(content_hash=proof["contentHash"], accepted_at=accepted) == leaf
        checkpoint = _verified_checkpoint(proof["checkpoint"])
        verify_inclusion(
            index=proof["leafIndex"],
            size=checkpoint.size,
            leaf=leaf,
            path=hashes_from_text(proof["auditPath"]),
            root=checkpoint.root_hash,
        )


def test_consistency_between_two_checkpoints_from_the_api_verifies(
    live_server: Any, ingest_token: str, read_token: str
) -> None:
    api_call(live_server.url, ingest_token, "/api/v1/lineage/batch", _events(5))
    first = checkpoint_sign()
    api_call(live_server.url, ingest_token, "/api/v1/lineage/batch", _events(9))
    second = checkpoint_sign()
    assert first is not None and second is not None
    old, new = (_verified_checkpoint({"note": c.note}) for c in (first, second))
    status, answer, _ = api_call(live_server.url, read_token, "/api/v1/ledger/consistency?from=5")
    assert status == 200 and (answer["from"], answer["to"]) == (5, 14)
    verify_consistency(
        first=old.size,
        second=new.size,
        first_root=old.root_hash,
        second_root=new.root_hash,
        path=hashes_from_text(answer["proof"]),
    )
    assert api_call(live_server.url, read_token, "/api/v1/ledger/consistency?from=14&to=14")[1]["proof"] == []


def test_bad_log_requests_are_answered_4xx_naming_the_parameter(
    live_server: Any, ingest_token: str, read_token: str
) -> None:
    assert api_call(live_server.url, read_token, "/api/v1/ledger/checkpoint")[0] == 404
    receipts = api_call(live_server.url, ingest_token, "/api/v1/lineage/batch", _events(3))[1]["results"]
    checkpoint_sign()
    late = api_call(live_server.url, ingest_token, "/api/v1/lineage", _events(1)[0])[1]
    expected = {
        "event=12345": (404, "event"),
        "event=not-a-hash": (400, "event"),
        f"event={receipts[0]['id']}&treeSize=2": (404, "treeSize"),
        f"event={receipts[0]['id']}&treeSize=0": (400, "treeSize"),
        f"event={late['id']}&treeSize=3": (404, "treeSize"),
        f"event={late['id']}": (409, "event"),
        "": (400, "event"),
    }
    for query, (code, parameter) in expected.items():
        status, body, headers = api_call(live_server.url, read_token, f"/api/v1/ledger/proof?{query}")
        assert (status, body.get("path")) == (code, parameter), (query, body)
        assert body["message"]
    status, body, headers = api_call(live_server.url, read_token, f"/api/v1/ledger/proof?event={late['id']}")
    assert "not yet in a checkpoint" in body["message"] and "next checkpoint is due by" in body["message"]
    assert int(headers["Retry-After"]) >= 1
    for query, (code, parameter) in {
        "from=3&to=2": (400, "from"),
        "from=1&to=9": (404, "to"),
        "from=-1": (400, "from"),
        "to=2": (400, "from"),
    }.items():
        status, body, _ = api_call(live_server.url, read_token, f"/api/v1/ledger/consistency?{query}")
        assert (status, body.get("path")) == (code, parameter), (query, body)
    # An ingest token may witness (checkpoint, consistency: hashes only) but not read proofs of events.
    assert api_call(live_server.url, ingest_token, f"/api/v1/ledger/proof?event={receipts[0]['id']}")[0] == 403
    assert api_call(live_server.url, ingest_token, "/api/v1/ledger/checkpoint")[0] == 200


def _gauge(name: str) -> float:
    text = metrics_exposition(event_log=event_log_gauges).decode()
    return float(next(line.split()[-1] for line in text.splitlines() if line.startswith(f"{name} ")))


def test_deleting_an_event_row_directly_makes_the_next_checkpoint_check_fail_loudly(
    live_server: Any, ingest_token: str
) -> None:
    receipts = api_call(live_server.url, ingest_token, "/api/v1/lineage/batch", _events(6))[1]["results"]
    checkpoint_log()
    assert _gauge("tributary_ledger_log_mismatches") == 0
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {LineageEvent._meta.db_table} WHERE id = %s", [receipts[2]["id"]])
    api_call(live_server.url, ingest_token, "/api/v1/lineage", _events(1)[0])
    with pytest.raises(LogMismatch, match="1 leaf"):
        checkpoint_log()
    assert _gauge("tributary_ledger_log_mismatches") == 1
    assert _gauge("tributary_ledger_log_size") == 7 and _gauge("tributary_ledger_checkpoint_size") == 7
    with pytest.raises(CommandError, match=f"'leafIndex': {receipts[2]['leafIndex']}"):
        call_command("check_log", stdout=StringIO())


def test_a_changed_event_is_found_by_the_full_check_and_a_lost_leaf_stops_the_next_checkpoint(
    live_server: Any, ingest_token: str
) -> None:
    receipts = api_call(live_server.url, ingest_token, "/api/v1/lineage/batch", _events(4))[1]["results"]
    checkpoint_sign()
    LineageEvent.objects.filter(id=receipts[1]["id"]).update(received_at=timezone.now() - timedelta(days=1))
    with pytest.raises(CommandError, match="1 event\\(s\\) changed"):
        call_command("check_log", stdout=StringIO())
    LogLeaf.objects.filter(leaf_index=2).delete()
    api_call(live_server.url, ingest_token, "/api/v1/lineage", _events(1)[0])
    with pytest.raises(LogTampered, match="missing from the log's store"):
        checkpoint_sign()


def test_pruned_events_keep_their_leaves_old_proofs_still_verify_and_a_signed_prune_record_is_kept(
    live_server: Any, ingest_token: str, read_token: str
) -> None:
    receipts = api_call(live_server.url, ingest_token, "/api/v1/lineage/batch", _events(5))[1]["results"]
    checkpoint_sign()
    old = [r["id"] for r in receipts[:2]]
    LineageEvent.objects.filter(id__in=old).update(
        status=LineageEvent.Status.APPLIED, received_at=timezone.now() - timedelta(days=40)
    )
    assert events_prune(older_than_days=30, batch_size=100) == 2
    record = LogPrune.objects.get()
    assert record.leaf_count == 2 and set(
        LogLeaf.objects.filter(pruned_by=record).values_list("event_id", flat=True)
    ) == set(old)
    note = parse_note(record.note)
    assert note.text.splitlines()[:3] == ["tributary prune record v1", ORIGIN, "5"]
    note_verify(note, _keys())
    status, proof, _ = api_call(live_server.url, read_token, f"/api/v1/ledger/proof?event={old[0]}")
    assert status == 200 and proof["pruned"] is True
    checkpoint = _verified_checkpoint(proof["checkpoint"])
    verify_inclusion(
        index=proof["leafIndex"],
        size=checkpoint.size,
        leaf=hash_from_text(proof["leafHash"]),
        path=hashes_from_text(proof["auditPath"]),
        root=checkpoint.root_hash,
    )
    call_command("check_log", stdout=StringIO())


def test_after_the_server_key_rotates_old_and_new_checkpoints_verify_and_each_names_its_signer(
    live_server: Any, ingest_token: str, read_token: str, settings: Any
) -> None:
    api_call(live_server.url, ingest_token, "/api/v1/lineage/batch", _events(2))
    first = checkpoint_sign()
    settings.LEDGER_SIGNING_KEY = private_key_pem(generate_private_key())
    api_call(live_server.url, ingest_token, "/api/v1/lineage/batch", _events(2))
    second = checkpoint_sign()
    assert first is not None and second is not None and first.key_id != second.key_id
    answer = api_call(live_server.url, read_token, "/api/v1/ledger/checkpoint")[1]
    assert answer["keyId"] == second.key.key_id and {k["keyId"] for k in answer["keys"]} == {
        first.key.key_id,
        second.key.key_id,
    }
    verifiers = [parse_vkey(k["verifierKey"]) for k in answer["keys"]]
    for checkpoint in (first, second):
        (signer,) = note_verify(parse_note(checkpoint.note), verifiers)
        assert signer.vkey() == checkpoint.key.verifier_key
