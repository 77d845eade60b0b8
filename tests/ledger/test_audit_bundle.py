"""Offline audit bundles: the server writes one, `lineage_protocol` alone verifies it, and any change is caught."""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pypdf import PdfReader

from lineage_app.ingest.audit_bundle import AuditSelection, BundleRefused, audit_bundle_write
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.verification import events_verify
from lineage_app.ledger.checkpoints import checkpoint_sign, log_note_sign
from lineage_app.ledger.models import WitnessKey
from lineage_app.ledger.witness_reports import cosignature_accept
from lineage_protocol import (
    AuditReport,
    Head,
    NoteVerifier,
    StreamChain,
    bundle_line,
    bundle_seal_text,
    bundle_verify,
    cosign,
    cosigner_vkey,
    generate_private_key,
    note_sign,
    parse_note,
    signed_hash,
)
from spark_agent.audit_summary import summary_html, summary_pdf
from tests.apply import accept, as_json
from tests.events import run_event
from tests.ledger.chains import KEY, PRODUCER, contents, register

pytestmark = pytest.mark.django_db
ORIGIN = "lineage.test/log"
WITNESS = "witness.example/w1"


@pytest.fixture(autouse=True)
def _log(settings: Any, tmp_path: Path) -> None:
    settings.LEDGER_ORIGIN = ORIGIN
    settings.LEDGER_SIGNING_KEY_PATH = tmp_path / "keys" / "ledger.key"
    register()


def record(events: list[dict[str, Any]]) -> None:
    """Accept `events` with their JSON as their bytes, and verify them as a worker does (the ledger records them)."""
    ids = accept(*events, raw=as_json)
    events_verify(events=list(LineageEvent.objects.filter(id__in=ids, status__in=LineageEvent.APPLYABLE)))


def chained(n: int, *, instance: str = "test:1", heartbeat: bool = True, tag: str = "") -> list[dict[str, Any]]:
    chain = StreamChain(KEY, instance)
    events = [chain.sign(event) for event in contents(n, tag=tag or instance)]
    return [*events, chain.heartbeat(namespace="spark")] if heartbeat else events


def bundle(tmp_path: Path, selection: AuditSelection | None = None, name: str = "bundle.jsonl") -> Path:
    buffer = io.BytesIO()
    audit_bundle_write(selection=selection or AuditSelection(), write=buffer.write)
    path = tmp_path / name
    path.write_bytes(buffer.getvalue())
    return path


def verdicts(report: AuditReport) -> dict[str, tuple[str, str]]:
    return {s["stream"].split("/")[1]: (s["state"], s["verdict"]) for s in report.summary()["streams"]}


def test_a_valid_bundle_verifies_every_stream_checkpoint_and_the_seal(tmp_path: Path) -> None:
    record(chained(5) + chained(3, instance="test:2"))
    checkpoint_sign()
    record(chained(2, instance="test:3"))
    checkpoint_sign()
    report = bundle_verify(bundle(tmp_path))
    assert report.problems == [] and report.ok, report.summary()
    assert verdicts(report) == {f"test:{n}": ("contiguous", "ok") for n in (1, 2, 3)}
    assert report.events == 13
    summary = report.summary()
    # Proofs against the first checkpoint that covers everything; the latest is the same one here.
    assert [c["treeSize"] for c in summary["checkpoints"]] == [13]
    assert summary["checkpoints"][0]["signers"] == [ORIGIN] and summary["checkpoints"][0]["witnesses"] == []


def test_proofs_are_against_the_first_covering_checkpoint_and_consistent_with_the_latest(tmp_path: Path) -> None:
    record(chained(4))
    checkpoint_sign()
    cut = timezone.now()
    record(chained(4, instance="test:2"))
    checkpoint_sign()
    record(chained(1, instance="test:3"))
    checkpoint_sign()
    report = bundle_verify(bundle(tmp_path, AuditSelection(producer=PRODUCER, until=cut)))
    assert report.ok, report.summary()
    summary = report.summary()
    # The first stream's 5 leaves: the first checkpoint covers them; the latest (12 leaves) extends it.
    assert (summary["checkpoint"], [c["treeSize"] for c in summary["checkpoints"]]) == (5, [5, 12])
    assert verdicts(report) == {"test:1": ("contiguous", "ok")}


def test_a_selection_by_namespace_time_and_producer(tmp_path: Path) -> None:
    record(chained(3))
    checkpoint_sign()
    assert bundle_verify(bundle(tmp_path, AuditSelection(namespace="spark"))).events == 4
    with pytest.raises(BundleRefused, match="no accepted event matches"):
        bundle(tmp_path, AuditSelection(producer="someone-else"))
    with pytest.raises(BundleRefused, match="no accepted event matches"):
        bundle(tmp_path, AuditSelection(until=timezone.now() - timedelta(days=1)))


def test_events_no_checkpoint_covers_yet_are_refused_with_what_to_do(tmp_path: Path) -> None:
    record(chained(2))
    with pytest.raises(BundleRefused, match=r"the log has no checkpoint yet.*check_log --sign"):
        bundle(tmp_path)
    checkpoint_sign()
    record(chained(2, instance="test:2"))
    with pytest.raises(BundleRefused, match="reaches leaf 5, which no checkpoint covers yet"):
        bundle(tmp_path)


def test_an_event_deleted_from_the_event_log_shows_as_a_gap_at_its_seq(tmp_path: Path) -> None:
    events = chained(5)
    record(events)
    checkpoint_sign()
    LineageEvent.objects.filter(content_hash=LineageEvent.objects.order_by("id")[2].content_hash).delete()
    report = bundle_verify(bundle(tmp_path))
    assert not report.ok
    [stream] = report.summary()["streams"]
    assert (stream["state"], stream["gaps"], stream["verdict"]) == ("gap", [{"from": 3, "to": 3}], "failed")


def test_a_withheld_tail_shows_as_truncated_by_the_heartbeat(tmp_path: Path) -> None:
    chain = StreamChain(KEY, "test:1")
    events = [chain.sign(event) for event in contents(4)]
    record([*events[:2], chain.heartbeat(namespace="spark")])
    checkpoint_sign()
    [stream] = bundle_verify(bundle(tmp_path)).summary()["streams"]
    assert (stream["state"], stream["truncated"]) == ("truncated", {"from": 3, "to": 4})


def test_an_edited_event_names_its_stream_and_seq(tmp_path: Path) -> None:
    record(chained(5))
    checkpoint_sign()
    path = bundle(tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[3] = lines[3].replace(b"job_2", b"job_X")
    path.write_bytes(b"".join(lines))
    report = bundle_verify(path)
    assert not report.ok
    [stream] = report.summary()["streams"]
    assert stream["gaps"] == [{"from": 3, "to": 3}]
    assert stream["problems"][0].startswith("seq 3, line 4 (leaf 2): ")
    assert any("seal does not match" in p for p in report.problems)


def test_a_gzip_bundle_verifies_and_a_damaged_one_says_so(tmp_path: Path) -> None:
    record(chained(3))
    checkpoint_sign()
    path = tmp_path / "bundle.jsonl.gz"
    path.write_bytes(gzip.compress(bundle(tmp_path).read_bytes()))
    assert bundle_verify(path).ok
    path.write_bytes(path.read_bytes()[:-20])
    report = bundle_verify(path)
    assert not report.ok and "not a whole gzip file" in report.problems[-1]


@pytest.fixture
def valid_bundle(tmp_path: Path) -> bytes:
    record(chained(3) + chained(2, instance="test:2"))
    checkpoint_sign()
    record(chained(1, instance="test:3"))
    checkpoint_sign()
    data = bundle(tmp_path).read_bytes()
    assert bundle_verify(bundle(tmp_path)).ok
    return data


def test_any_one_byte_change_to_a_bundle_fails_verification(valid_bundle: bytes, tmp_path: Path) -> None:
    path = tmp_path / "changed.jsonl"

    @settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
    @given(position=st.integers(0, len(valid_bundle) - 1), value=st.integers(0, 255))
    def changed_fails(position: int, value: int) -> None:
        if valid_bundle[position] == value:
            return
        data = bytearray(valid_bundle)
        data[position] = value
        path.write_bytes(bytes(data))
        report = bundle_verify(path)
        assert not report.ok
        json.dumps(report.summary())  # whatever was found, it can be printed

    changed_fails()


def test_removing_or_repeating_a_line_fails_verification(valid_bundle: bytes, tmp_path: Path) -> None:
    lines = valid_bundle.splitlines(keepends=True)
    path = tmp_path / "changed.jsonl"
    for n in range(len(lines)):
        for changed in (lines[:n] + lines[n + 1 :], lines[: n + 1] + lines[n:]):
            path.write_bytes(b"".join(changed))
            assert not bundle_verify(path).ok, n


def test_two_events_at_one_seq_are_a_fork(tmp_path: Path) -> None:
    chain = StreamChain(KEY, "test:1")
    first = [chain.sign(event) for event in contents(3)]
    chain.rewind(Head(chain.stream, 1, signed_hash(first[0])))
    other = chain.sign(contents(1, tag="other")[0])
    record([*first, other])
    checkpoint_sign()
    [stream] = bundle_verify(bundle(tmp_path)).summary()["streams"]
    assert (stream["state"], stream["forks"], stream["verdict"]) == ("fork", [2], "failed")


def reseal(lines: list[bytes]) -> bytes:
    """`lines` (the header and events) sealed again with the log's key: a bundle the server itself wrote wrong."""
    digest = hashlib.sha256(b"".join(lines)).digest()
    note, _ = log_note_sign(bundle_seal_text(origin=ORIGIN, lines=len(lines), digest=digest))
    return b"".join(lines) + bundle_line({"seal": note})


def sorted_line(value: dict[str, Any]) -> bytes:
    """A line as a writer that sorts keys would write it: RFC 8785's bytes for the values a bundle holds, and
    for what RFC 8785 refuses (integers beyond 2^53) bytes all the same."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=60),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=8,
)
HASHES = st.binary(min_size=32, max_size=32).map(lambda h: base64.b64encode(h).decode())
PROOFS = st.lists(HASHES | st.text(max_size=50), max_size=70)
SIZES = st.integers(-(2**66), 2**66) | st.sampled_from([0, 1, 2, 5, 6, 7, 2**63, 2**64 - 1, 2**64])


def test_a_sealed_bundle_with_wrong_proofs_sizes_numbers_or_types_fails_with_clear_errors(
    valid_bundle: bytes, tmp_path: Path
) -> None:
    lines = valid_bundle.splitlines(keepends=True)[:-1]
    path = tmp_path / "fuzzed.jsonl"
    header_members = sorted(json.loads(lines[0]))
    event_members = ["leafIndex", "acceptedAt", "raw", "auditPath"]

    @settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def fuzzed_fails(data: st.DataObject) -> None:
        line = data.draw(st.integers(0, len(lines) - 1))
        value = json.loads(lines[line])
        if line == 0:
            member = data.draw(st.sampled_from(header_members))
            nested = {
                "checkpoint": SIZES,
                "consistency": st.lists(
                    st.fixed_dictionaries({"from": SIZES, "to": SIZES, "proof": PROOFS}), max_size=3
                ),
            }
            value[member] = data.draw(nested.get(member, JSON_VALUES) | JSON_VALUES)
        else:
            member = data.draw(st.sampled_from(event_members))
            nested = {"leafIndex": SIZES, "auditPath": PROOFS}
            value[member] = data.draw(nested.get(member, JSON_VALUES) | JSON_VALUES)
        changed = list(lines)
        changed[line] = sorted_line(value)
        if changed[line] == lines[line]:
            return
        path.write_bytes(reseal(changed))
        report = bundle_verify(path)
        assert not report.ok
        found = report.problems + [p for s in report.streams.values() for p in s.problems]
        found += [p for c in report.checkpoints for p in c.problems]
        assert found or any(s.state != "contiguous" for s in report.streams.values())
        assert all("Traceback" not in p and len(p) < 2000 for p in found)

    fuzzed_fails()


@pytest.mark.parametrize(
    ("member", "value", "error"),
    [
        ("leafIndex", 2**64, "holds a value JSON cannot canonicalise: 18446744073709551616 exceeds safe integer"),
        ("leafIndex", -1, "`leafIndex` must be from 0 to 2^64 - 1"),
        ("leafIndex", "3", "`leafIndex` must be an integer"),
        ("leafIndex", True, "`leafIndex` must be an integer"),
        ("auditPath", ["AAAA"], "each hash of auditPath must be the base64 of 32 bytes"),
        ("auditPath", "AAAA", "auditPath must be a list of at most 66 base64 hashes"),
        ("auditPath", [base64.b64encode(bytes(32)).decode()] * 67, "at most 66 base64 hashes"),
        (
            "acceptedAt",
            "2026-13-01T00:00:00.000000Z",
            "`acceptedAt`: time data '2026-13-01T00:00:00.000000Z' does not match",
        ),
        ("raw", {"eventType": "START"}, "`raw` must be a string"),
    ],
)
def test_a_malformed_event_line_is_named_with_what_is_wrong(
    valid_bundle: bytes, tmp_path: Path, member: str, value: Any, error: str
) -> None:
    lines = valid_bundle.splitlines(keepends=True)[:-1]
    event = json.loads(lines[2])
    event[member] = value
    lines[2] = sorted_line(event)
    path = tmp_path / "malformed.jsonl"
    path.write_bytes(reseal(lines))
    report = bundle_verify(path)
    assert not report.ok
    assert any(p.startswith("line 3") and error in p for p in report.problems), report.problems


def test_a_proof_for_another_leaf_or_tree_size_does_not_verify(valid_bundle: bytes, tmp_path: Path) -> None:
    lines = valid_bundle.splitlines(keepends=True)[:-1]
    second, third = json.loads(lines[2]), json.loads(lines[3])
    second["auditPath"] = third["auditPath"]  # a real proof, of the wrong leaf
    lines[2] = bundle_line(second)
    path = tmp_path / "wrong-proof.jsonl"
    path.write_bytes(reseal(lines))
    report = bundle_verify(path)
    [problem] = [p for s in report.streams.values() for p in s.problems]
    assert "line 3 (leaf 1): not in the log as bundled: inclusion proof of leaf 1 does not lead to the root" in problem


def test_a_witness_s_cosignature_kept_by_the_server_travels_in_the_bundle_and_verifies(tmp_path: Path) -> None:
    """A registered witness cosigns a checkpoint (C2SP cosignature/v1, checked and kept by the server as a
    witness's POST is); the bundle carries the line and the witness's key, and the verifier names the witness."""
    record(chained(4))
    checkpoint = checkpoint_sign()
    assert checkpoint is not None
    witness = generate_private_key()
    WitnessKey.objects.create(verifier_key=cosigner_vkey(WITNESS, witness.public_key()))
    text = parse_note(checkpoint.note).text
    cosignature_accept(
        tree_size=checkpoint.size, line=cosign(text, name=WITNESS, private_key=witness, timestamp=1).line()
    )
    report = bundle_verify(bundle(tmp_path))
    assert report.ok, report.summary()
    assert report.summary()["checkpoints"][0]["witnesses"] == [WITNESS]


def test_cosignatures_are_checked_against_the_bundles_witness_keys(valid_bundle: bytes, tmp_path: Path) -> None:
    lines = valid_bundle.splitlines(keepends=True)[:-1]
    header = json.loads(lines[0])
    witness = generate_private_key()
    text = parse_note(header["checkpoints"][0]["note"]).text
    cosignature = cosign(text, name=WITNESS, private_key=witness, timestamp=1).line()
    path = tmp_path / "witnessed.jsonl"

    def verified(cosignatures: list[str], witness_keys: list[str]) -> AuditReport:
        header["checkpoints"][0]["cosignatures"] = cosignatures
        header["witnessKeys"] = witness_keys
        path.write_bytes(reseal([bundle_line(header), *lines[1:]]))
        return bundle_verify(path)

    vkey = cosigner_vkey(WITNESS, witness.public_key())
    report = verified([cosignature], [vkey])
    assert report.ok, report.summary()
    assert report.summary()["checkpoints"][0]["witnesses"] == [WITNESS]
    # A cosignature no witness key in the bundle can check is a failure, not ignored.
    [problem] = verified([cosignature], []).checkpoints[0].problems
    assert f"no witness key of the bundle is {WITNESS}" in problem
    # One made over another text, or a plain note signature by the same key, does not verify.
    forged = cosign(text + "x\n", name=WITNESS, private_key=witness, timestamp=1).line()
    [problem] = verified([forged], [vkey]).checkpoints[0].problems
    assert f"the cosignature of {WITNESS} does not verify" in problem
    plain = note_sign(text, name=WITNESS, private_key=witness).line()
    [problem] = verified([plain], [vkey]).checkpoints[0].problems
    assert "does not verify" in problem or "no witness key" in problem
    # A witness key that is not a C2SP cosigner key is a malformed bundle.
    malformed = verified([cosignature], [NoteVerifier(WITNESS, witness.public_key()).vkey()])
    assert not malformed.ok and any("witnessKeys" in problem for problem in malformed.problems), malformed.problems


def test_a_time_window_brings_each_streams_neighbours_so_an_event_missing_at_its_edge_is_a_gap(
    tmp_path: Path,
) -> None:
    chain = StreamChain(KEY, "test:1")
    events = [chain.sign(event) for event in contents(6)]
    record(events[:2])
    cut = timezone.now()
    record(events[2:4])
    until = timezone.now()
    record(events[4:])
    checkpoint_sign()
    window = AuditSelection(since=cut, until=until)
    [stream] = bundle_verify(bundle(tmp_path, window)).summary()["streams"]
    # Seqs 3 and 4 were accepted in the window; 2 and 5 are their stream's neighbours outside it.
    assert (stream["from"], stream["to"], stream["state"], stream["verdict"]) == (2, 5, "contiguous", "ok")
    LineageEvent.objects.filter(content_hash=signed_hash(events[2])).delete()
    [stream] = bundle_verify(bundle(tmp_path, window)).summary()["streams"]
    assert (stream["from"], stream["to"], stream["gaps"], stream["verdict"]) == (2, 5, [{"from": 3, "to": 3}], "failed")


def test_a_namespace_selects_whole_streams_so_a_stream_that_mixes_namespaces_still_verifies(tmp_path: Path) -> None:
    chain = StreamChain(KEY, "relay:edge:1")
    mixed = [
        run_event(
            "COMPLETE", run_id=str(uuid.uuid5(uuid.NAMESPACE_URL, f"mixed/{n}")), namespace=("spark", "hr")[n % 2]
        )
        for n in range(5)
    ]
    record([chain.sign(event) for event in mixed] + [chain.heartbeat(namespace="tributary")])
    record(chained(2, instance="test:spark-only", heartbeat=False, tag="spark"))
    checkpoint_sign()
    report = bundle_verify(bundle(tmp_path, AuditSelection(namespace="hr")))
    assert report.ok, report.summary()
    # The relay's stream whole (five events and its heartbeat); the other stream has no event of `hr`.
    assert verdicts(report) == {"relay:edge:1": ("contiguous", "ok")} and report.events == 6


def test_the_auditors_summary_escapes_what_the_bundle_says_and_lists_every_stream(tmp_path: Path) -> None:
    key = generate_private_key()
    register(key, producer="<script>alert(1)</script>")
    chain = StreamChain(key, "test:odd")
    record([chain.sign(event) for event in contents(2, tag="odd")])
    record(chained(2))
    checkpoint_sign()
    report = bundle_verify(bundle(tmp_path))
    page = summary_html(report)
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert chain.stream in page and page.count("verified</td>") == 2
    text = "".join(sheet.extract_text() for sheet in PdfReader(io.BytesIO(summary_pdf(report))).pages)
    assert "Verdict: verified" in text and "<script>alert(1)</script>" in text
