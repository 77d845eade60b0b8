"""Witnesses against a real server over HTTP: a consistent log is cosigned and shown witnessed; a rolled-back,
forked or rewritten log, or one whose tree lost a row, is refused and raises the alarm in the API and in
`/metrics`; forged cosignatures and reports are refused and change nothing."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import call_command
from django.core.management.base import CommandError

from lineage_app.ingest.selectors import event_log_gauges
from lineage_app.ingest.tasks import checkpoint_log
from lineage_app.ledger.checkpoints import checkpoint_sign
from lineage_app.ledger.log_keys import log_key_record, log_signing_key
from lineage_app.ledger.models import Cosignature, LogCheckpoint, LogHead, LogKey, LogLeaf, WitnessAlarm, WitnessKey
from lineage_app.observability.exposition import metrics_exposition
from lineage_protocol import (
    Checkpoint,
    LogClient,
    Note,
    RefusalKind,
    Witness,
    WitnessRefusal,
    cosign,
    cosigner_vkey,
    generate_private_key,
    note_sign,
    parse_note,
    parse_vkey,
    private_key_pem,
    refusal_note,
)
from tests.events import new_run_id, run_event
from tests.ledger.live_api import api_call

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = "lineage.test/log"
NAME = "witness.test/w1"


@pytest.fixture(autouse=True)
def _log_settings(settings: Any, tmp_path: Path) -> None:
    settings.LEDGER_ORIGIN = ORIGIN
    settings.LEDGER_SIGNING_KEY_PATH = tmp_path / "keys" / "ledger.key"


@pytest.fixture
def witness_key() -> Ed25519PrivateKey:
    key = generate_private_key()
    WitnessKey.objects.create(verifier_key=cosigner_vkey(NAME, key.public_key()), note="the test's witness")
    return key


def _accept(url: str, token: str, count: int) -> None:
    events = [run_event("START", run_id=new_run_id()) for _ in range(count)]
    assert api_call(url, token, "/api/v1/lineage/batch", events)[0] == 200
    checkpoint_log()


def _witness(url: str, token: str, key: Ed25519PrivateKey, state: Path) -> Witness:
    """A witness as a restarted process would build it: only the state file carries what it cosigned."""
    log_key = parse_vkey(LogKey.objects.get().verifier_key)
    return Witness(client=LogClient(url=url, token=token), log=log_key, name=NAME, private_key=key, state_path=state)


def _gauge(name: str) -> float:
    text = metrics_exposition(event_log=event_log_gauges).decode()
    return float(next(line.split()[-1] for line in text.splitlines() if line.startswith(f"{name} ")))


def _history(url: str, token: str, query: str = "") -> dict[str, Any]:
    status, answer, _ = api_call(url, token, f"/api/v1/ledger/checkpoints{query}")
    assert status == 200, answer
    return dict(answer)


def test_a_witness_cosigns_a_consistent_log_and_the_checkpoints_show_witnessed(
    live_server: Any, ingest_token: str, read_token: str, witness_key: Ed25519PrivateKey, tmp_path: Path
) -> None:
    state = tmp_path / "witness.json"
    _accept(live_server.url, ingest_token, 5)
    assert _gauge("tributary_ledger_unwitnessed_checkpoints") == 1
    first = _witness(live_server.url, ingest_token, witness_key, state).round()  # the relay's token: ingest scope
    assert first.refusal is None and first.checkpoint is not None and first.checkpoint.size == 5
    _accept(live_server.url, ingest_token, 6)
    _accept(live_server.url, ingest_token, 2)
    assert _gauge("tributary_ledger_unwitnessed_checkpoints") == 2
    second = _witness(live_server.url, ingest_token, witness_key, state).round()
    assert second.refusal is None and second.checkpoint is not None and second.checkpoint.size == 13
    assert _gauge("tributary_ledger_unwitnessed_checkpoints") == 0
    assert _gauge("tributary_ledger_witness_alarms") == 0

    history = _history(live_server.url, read_token, "?limit=2")
    assert (history["count"], history["witnesses"], history["unwitnessed"], history["alarms"]) == (3, 1, 0, [])
    assert [(c["treeSize"], c["witnessed"]) for c in history["results"]] == [(13, True), (11, False)]
    newest = history["results"][0]
    assert newest["cosignatures"][0]["witness"] == NAME
    # The note carries the log's signature and the witness's cosignature, verifiable with the protocol alone.
    note = parse_note(newest["note"])
    assert [s.name for s in note.signatures] == [ORIGIN, NAME]
    page_two = _history(live_server.url, read_token, f"?limit=2&before={history['next']}")
    assert [(c["treeSize"], c["witnessed"]) for c in page_two["results"]] == [(5, True)] and page_two["next"] is None


def test_a_log_rolled_back_to_an_older_checkpoint_is_refused_after_a_restart_and_raises_the_alarm(
    live_server: Any, ingest_token: str, read_token: str, witness_key: Ed25519PrivateKey, tmp_path: Path
) -> None:
    state = tmp_path / "witness.json"
    _accept(live_server.url, ingest_token, 4)
    _accept(live_server.url, ingest_token, 3)
    assert _witness(live_server.url, ingest_token, witness_key, state).round().refusal is None
    LogCheckpoint.objects.filter(size=7).delete()  # the server restored from a backup taken at size 4
    for _ in range(2):  # reported twice: one alarm, counted twice
        refused = _witness(live_server.url, ingest_token, witness_key, state).round()
        assert refused.refusal is not None and refused.refusal.kind == RefusalKind.ROLLBACK and refused.reported
    alarm = WitnessAlarm.objects.get()
    assert (alarm.kind, alarm.cosigned_size, alarm.offered_size, alarm.reports) == ("rollback", 7, 4, 2)
    assert _gauge("tributary_ledger_witness_alarms") == 1
    shown = _history(live_server.url, read_token)["alarms"]
    assert [(a["witness"], a["kind"], a["cosignedSize"], a["offeredSize"]) for a in shown] == [(NAME, "rollback", 7, 4)]
    assert "smaller than size 7" in shown[0]["reason"]
    assert "\n4\n" in shown[0]["offered"]  # the checkpoint it was offered, kept as evidence


def test_a_forked_checkpoint_of_the_cosigned_size_is_refused(
    live_server: Any, ingest_token: str, witness_key: Ed25519PrivateKey, tmp_path: Path
) -> None:
    state = tmp_path / "witness.json"
    _accept(live_server.url, ingest_token, 6)
    assert _witness(live_server.url, ingest_token, witness_key, state).round().refusal is None
    # Someone holding the server's key signs another history of the same size (a split view).
    LogCheckpoint.objects.filter(size=6).delete()
    private_key = log_signing_key()
    text = Checkpoint(ORIGIN, 6, b"\x07" * 32).text()
    note = Note(text, (note_sign(text, name=ORIGIN, private_key=private_key),)).serialise()
    key = log_key_record(private_key=private_key, origin=ORIGIN)
    LogCheckpoint.objects.create(size=6, root_hash=b"\x07" * 32, note=note, key=key)
    refused = _witness(live_server.url, ingest_token, witness_key, state).round()
    assert refused.refusal is not None and refused.refusal.kind == RefusalKind.FORK
    assert WitnessAlarm.objects.get().kind == "fork" and _gauge("tributary_ledger_witness_alarms") == 1


def test_a_log_rebuilt_with_another_history_is_refused_as_inconsistent(
    live_server: Any, ingest_token: str, witness_key: Ed25519PrivateKey, tmp_path: Path
) -> None:
    state = tmp_path / "witness.json"
    _accept(live_server.url, ingest_token, 5)
    assert _witness(live_server.url, ingest_token, witness_key, state).round().refusal is None
    # The tree is wiped and regrown from other events: a larger checkpoint that does not extend size 5.
    LogCheckpoint.objects.all().delete()
    LogLeaf.objects.all().delete()
    LogHead.objects.filter(pk=1).update(size=0, frontier=b"")
    events = [run_event("START", run_id=new_run_id()) for _ in range(9)]
    assert api_call(live_server.url, ingest_token, "/api/v1/lineage/batch", events)[0] == 200
    checkpoint_sign()  # the log's own check would name the 5 events without a leaf: the rewriter skips it
    refused = _witness(live_server.url, ingest_token, witness_key, state).round()
    assert refused.refusal is not None and refused.refusal.kind == RefusalKind.INCONSISTENT
    assert "does not extend size 5" in refused.refusal.reason
    assert WitnessAlarm.objects.get().offered_size == 9


def test_a_row_deleted_from_the_tree_makes_the_witness_refuse(
    live_server: Any, ingest_token: str, witness_key: Ed25519PrivateKey, tmp_path: Path
) -> None:
    state = tmp_path / "witness.json"
    _accept(live_server.url, ingest_token, 5)
    assert _witness(live_server.url, ingest_token, witness_key, state).round().refusal is None
    _accept(live_server.url, ingest_token, 6)
    LogLeaf.objects.filter(leaf_index=4).delete()  # a row the proof from size 5 to 11 needs
    refused = _witness(live_server.url, ingest_token, witness_key, state).round()
    assert refused.refusal is not None and refused.refusal.kind == RefusalKind.INCONSISTENT
    assert "missing from the log's store" in refused.refusal.reason
    assert _gauge("tributary_ledger_witness_alarms") == 1


def test_forged_cosignatures_and_reports_are_refused_and_change_nothing(
    live_server: Any, ingest_token: str, read_token: str, witness_key: Ed25519PrivateKey
) -> None:
    _accept(live_server.url, ingest_token, 3)
    text = parse_note(LogCheckpoint.objects.get().note).text
    stranger = generate_private_key()
    other_text = Checkpoint(ORIGIN, 3, b"\x01" * 32).text()
    forged = {
        "an unregistered witness": (cosign(text, name=NAME, private_key=stranger, timestamp=1).line(), 403),
        "another checkpoint's text": (cosign(other_text, name=NAME, private_key=witness_key, timestamp=1).line(), 400),
        "a future time": (cosign(text, name=NAME, private_key=witness_key, timestamp=4_000_000_000).line(), 400),
        "not a signature line": ("— witness.test/w1 !!!\n", 400),
        "a bare word": ("hello", 400),
        "two lines": (cosign(text, name=NAME, private_key=witness_key, timestamp=1).line() * 2, 400),
        "a control character": ("\u2014 witness.test/w1\x00 AAAA\n", 400),
    }
    for what, (line, expected) in forged.items():
        status, answer, _ = api_call(
            live_server.url, ingest_token, "/api/v1/ledger/cosignatures", {"treeSize": 3, "cosignature": line}
        )
        assert status == expected and answer["message"], (what, answer)
    good = cosign(text, name=NAME, private_key=witness_key, timestamp=1).line()
    status, answer, _ = api_call(
        live_server.url, ingest_token, "/api/v1/ledger/cosignatures", {"treeSize": 9, "cosignature": good}
    )
    assert (status, answer["path"]) == (404, "treeSize")
    status, answer, _ = api_call(live_server.url, ingest_token, "/api/v1/ledger/cosignatures", {"treeSize": "x"})
    assert status == 400
    assert not Cosignature.objects.exists() and _history(live_server.url, read_token)["unwitnessed"] == 1

    refusal = WitnessRefusal(RefusalKind.ROLLBACK, "made up", offered=None)
    unsigned_by_witness = refusal_note(refusal, origin=ORIGIN, state=None, name=NAME, private_key=stranger, timestamp=1)
    for report, expected in ((unsigned_by_witness, 403), ("no note at all", 400)):
        status, answer, _ = api_call(
            live_server.url, ingest_token, "/api/v1/ledger/witness-alarms", {"report": report, "offered": ""}
        )
        assert status == expected, answer
    assert not WitnessAlarm.objects.exists() and _gauge("tributary_ledger_witness_alarms") == 0
    assert (
        api_call(live_server.url, "not-a-token", "/api/v1/ledger/cosignatures", {"treeSize": 3, "cosignature": good})[0]
        == 401
    )


def test_manage_py_witness_prints_its_key_cosigns_and_exits_1_when_it_refuses(
    live_server: Any, ingest_token: str, read_token: str, tmp_path: Path
) -> None:
    key_path = tmp_path / "witness.key"
    key_path.write_text(private_key_pem(generate_private_key()))
    printed = StringIO()
    call_command("witness", "--key", str(key_path), "--name", "second.test/witness", "--print-key", stdout=printed)
    WitnessKey.objects.create(verifier_key=printed.getvalue().strip())
    _accept(live_server.url, ingest_token, 4)
    arguments = [
        "--log", live_server.url, "--log-key", LogKey.objects.get().verifier_key, "--key", str(key_path),
        "--name", "second.test/witness", "--token", read_token, "--state", str(tmp_path / "state.json"),
    ]  # fmt: skip
    out = StringIO()
    call_command("witness", *arguments, stdout=out)
    assert "cosigned the checkpoint of tree size 4" in out.getvalue()
    assert _history(live_server.url, read_token)["results"][0]["witnessed"] is True
    _accept(live_server.url, ingest_token, 3)
    call_command("witness", *arguments, stdout=StringIO())
    LogCheckpoint.objects.filter(size=7).delete()
    with pytest.raises(CommandError, match=r"REFUSED the checkpoint \(rollback\)"):
        call_command("witness", *arguments, stdout=StringIO())
    assert WitnessAlarm.objects.get().witness.name == "second.test/witness"
    with pytest.raises(CommandError, match="--name"):
        call_command("witness", "--key", str(key_path), "--name", "bad name", "--print-key", stdout=StringIO())
