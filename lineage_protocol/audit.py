"""Verify an offline audit bundle (`lineage_protocol.bundle`) with no server: signatures, chains, inclusion,
checkpoints, cosignatures, consistency and the seal; a verdict per stream.

The bundle is read line by line (plain or gzip), so memory grows with the number of events' chain positions
kept for the chains, never with their bytes. Whatever the bundle holds, `bundle_verify` returns a report (or
raises `OSError` if the file cannot be read): each problem names where it is, a stream and seq when the
event's signature names them, else the line and leaf.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import zlib
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from io import BufferedIOBase
from itertools import pairwise
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from rfc8785 import CanonicalizationError

from lineage_protocol.bundle import (
    MAX_LINE_BYTES,
    BundledEvent,
    BundleError,
    Header,
    parse_header,
    parse_line,
    parse_seal,
    producer_public_key,
)
from lineage_protocol.canonical import canonical_json, content_hash
from lineage_protocol.chain import is_heartbeat, read_heartbeat, stream_state
from lineage_protocol.merkle import ProofError, event_leaf_hash, verify_consistency, verify_inclusion
from lineage_protocol.note import Checkpoint, NoteError, NoteSignature, checkpoint_open, note_verify, parse_note
from lineage_protocol.signature import (
    EventParseError,
    Signature,
    SignatureFormatError,
    check_event,
    key_id,
    parse_event,
    read_signature,
)
from lineage_protocol.witness import cosignature_verify, cosigner_key_hash

GZIP_MAGIC = b"\x1f\x8b"


class SeqHashes:
    """Content hashes by seq, compactly (a bundle may hold millions): the first at each seq as 32 bytes, and any
    other one there (a fork) apart."""

    def __init__(self) -> None:
        self.first: dict[int, bytes] = {}
        self.more: dict[int, set[bytes]] = {}

    def add(self, seq: int, content_hash: str) -> None:
        value = bytes.fromhex(content_hash)
        if self.first.setdefault(seq, value) != value:
            self.more.setdefault(seq, set()).add(value)

    def at(self, seq: int) -> set[bytes]:
        return {self.first[seq], *self.more.get(seq, ())} if seq in self.first else set()

    def __contains__(self, seq: int) -> bool:
        return seq in self.first

    def __len__(self) -> int:
        return len(self.first) + sum(len(more) for more in self.more.values())


@dataclass
class StreamVerdict:
    """What the bundle shows of one stream: the seqs that verified, its state, and every problem found in it."""

    stream: str
    key_id: str
    producer: str
    seqs: SeqHashes = field(default_factory=SeqHashes)
    prevs: SeqHashes = field(default_factory=SeqHashes)
    heads: SeqHashes = field(default_factory=SeqHashes)
    problems: list[str] = field(default_factory=list)
    state: str = "contiguous"
    first: int = 0
    high: int = 0
    announced: int = 0
    gaps: list[tuple[int, int]] = field(default_factory=list)
    forks: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.state == "contiguous" and not self.problems

    def settle(self, *, whole: bool) -> None:
        """Work out gaps, forks and truncation; `whole` when the selection has no start, so seq 1 must be there."""
        seqs = sorted(self.seqs.first)
        self.first, self.high = (1 if whole else seqs[0], seqs[-1]) if seqs else (1, 0)
        present = set(seqs)
        start = None
        for seq in range(self.first, self.high + 1):
            if seq not in present and start is None:
                start = seq
            elif seq in present and start is not None:
                self.gaps.append((start, seq - 1))
                start = None
        forked = set(self.seqs.more)
        for seq in self.prevs.first:
            if seq - 1 in self.seqs and self.prevs.at(seq) - self.seqs.at(seq - 1):
                forked.add(seq - 1)
        for seq in self.heads.first:
            if seq in self.seqs and self.heads.at(seq) - self.seqs.at(seq):
                forked.add(seq)
        self.forks = sorted(forked)
        self.state = stream_state(forks=len(self.forks), gaps=len(self.gaps), high=self.high, announced=self.announced)

    def summary(self) -> dict[str, Any]:
        return {
            "stream": self.stream,
            "keyId": self.key_id,
            "producer": self.producer,
            "verdict": "ok" if self.ok else "failed",
            "state": self.state,
            "from": self.first,
            "to": self.high,
            "events": len(self.seqs),
            "gaps": [{"from": a, "to": b} for a, b in self.gaps],
            "forks": self.forks,
            "truncated": {"from": self.high + 1, "to": self.announced} if self.announced > self.high else None,
            "problems": self.problems,
        }


@dataclass
class CheckpointVerdict:
    """One bundled checkpoint: what it says, who signed it, which witnesses cosigned it, and any problem."""

    size: int
    root_hash: str
    signers: list[str] = field(default_factory=list)
    witnesses: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


@dataclass
class AuditReport:
    """Everything `bundle_verify` found. `ok` only when every stream, checkpoint, proof and the seal is sound."""

    path: str
    header: Header | None = None
    streams: dict[str, StreamVerdict] = field(default_factory=dict)
    unchained: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    checkpoints: list[CheckpointVerdict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    events: int = 0

    @property
    def ok(self) -> bool:
        return (
            not self.problems
            and self.events > 0
            and all(s.ok for s in self.streams.values())
            and not any(c.problems for c in self.checkpoints)
        )

    def summary(self) -> dict[str, Any]:
        """The report as `--json` prints it."""
        header = self.header
        return {
            "bundle": self.path,
            "verdict": "ok" if self.ok else "failed",
            "origin": header.origin if header else None,
            "createdAt": header.created_at if header else None,
            "selection": dict(header.selection) if header else None,
            "checkpoint": header.checkpoint if header else None,
            "events": self.events,
            "checkpoints": [
                {
                    "treeSize": c.size,
                    "rootHash": c.root_hash,
                    "signers": c.signers,
                    "witnesses": c.witnesses,
                    "problems": c.problems,
                }
                for c in self.checkpoints
            ],
            "producerKeys": [{"producer": k.producer, "keyId": k.key_id} for k in header.producer_keys]
            if header
            else [],
            "streams": [self.streams[name].summary() for name in sorted(self.streams)],
            "unchained": [{"producer": p, "events": n} for p, n in sorted(self.unchained.items())],
            "problems": self.problems,
        }


def _cosigner(text: str, signature: NoteSignature, keys: Sequence[tuple[str, Ed25519PublicKey]]) -> str:
    """The name of the witness whose C2SP cosignature of checkpoint `text` `signature` is; `NoteError` when no
    witness key of the bundle has made it (an unknown witness is a failure, not ignored) or it does not verify."""
    for name, public_key in keys:
        if name == signature.name and cosigner_key_hash(name, public_key) == signature.key_hash:
            cosignature_verify(text, signature, name=name, public_key=public_key)
            return name
    raise NoteError(f"no witness key of the bundle is {signature.name} ({signature.key_hash.hex()})")


def _lines(handle: BufferedIOBase) -> Iterator[bytes]:
    while line := handle.readline(MAX_LINE_BYTES + 1):
        if len(line) > MAX_LINE_BYTES:
            raise BundleError(f"a line is longer than {MAX_LINE_BYTES} bytes")
        yield line


class _Verifier:
    """One pass over a bundle's lines."""

    def __init__(self, report: AuditReport) -> None:
        self.report = report
        self.digest = hashlib.sha256()
        self.lines = 0
        self.sealed = False
        self.keys: dict[str, Ed25519PublicKey] = {}
        self.producers: dict[str, str] = {}
        self.checkpoint: Checkpoint | None = None
        self.last_leaf = -1

    def run(self, lines: Iterator[bytes]) -> None:
        for line in lines:
            number = self.lines + 1
            if self.sealed:
                self.report.problems.append(f"line {number}: content after the seal")
                return
            if number == 1:
                self.header(line)
            else:
                self.line(line, number)
            if not self.sealed:
                self.digest.update(line)
                self.lines = number
        if not self.sealed:
            self.report.problems.append(f"the bundle ends after line {self.lines} without its seal: it was cut short")

    def header(self, line: bytes) -> None:
        header = parse_header(line)  # a bundle without a readable header cannot be verified at all
        self.report.header = header
        for key in header.producer_keys:
            try:
                public_key = producer_public_key(key)
            except BundleError as exc:
                self.report.problems.append(str(exc))
                continue
            if key_id(public_key) != key.key_id:
                self.report.problems.append(f"producer key {key.key_id[:48]!r}: its PEM is key {key_id(public_key)}")
                continue
            self.keys[key.key_id] = public_key
            self.producers[key.key_id] = key.producer
        self.checkpoints(header)

    def checkpoints(self, header: Header) -> None:
        opened: list[Checkpoint] = []
        for entry in header.checkpoints:
            try:
                checkpoint = checkpoint_open(entry.note, verifiers=header.log_keys, origin=header.origin)
            except NoteError as exc:
                self.report.problems.append(f"a checkpoint does not verify with the log's keys: {exc}")
                continue
            verdict = CheckpointVerdict(checkpoint.size, base64.b64encode(checkpoint.root_hash).decode("ascii"))
            verdict.signers = [v.name for v in note_verify(parse_note(entry.note), header.log_keys)]
            try:
                cosigned = entry.cosigned()
                for signature in cosigned.signatures:
                    verdict.witnesses.append(_cosigner(cosigned.text, signature, header.witness_keys))
            except NoteError as exc:
                verdict.problems.append(f"a cosignature does not verify with the bundle's witness keys: {exc}")
            self.report.checkpoints.append(verdict)
            opened.append(checkpoint)
        sizes = [c.size for c in opened]
        if sizes != sorted(set(sizes)):
            self.report.problems.append("the checkpoints are not in increasing tree size")
        self.checkpoint = next((c for c in opened if c.size == header.checkpoint), None)
        if self.checkpoint is None:
            self.report.problems.append(
                f"no verified checkpoint of tree size {header.checkpoint}, which proofs are against"
            )
        pairs = list(pairwise(opened))
        if [(c.first, c.second) for c in header.consistency] != [(a.size, b.size) for a, b in pairs]:
            self.report.problems.append("the consistency proofs are not those between consecutive checkpoints")
            return
        for proof, (old, new) in zip(header.consistency, pairs, strict=True):
            try:
                verify_consistency(
                    first=old.size,
                    second=new.size,
                    first_root=old.root_hash,
                    second_root=new.root_hash,
                    path=list(proof.proof),
                )
            except ProofError as exc:
                self.report.problems.append(f"checkpoint {new.size} does not extend checkpoint {old.size}: {exc}")

    def line(self, line: bytes, number: int) -> None:
        try:
            parsed = parse_line(line, number)
        except BundleError as exc:
            self.report.problems.append(str(exc))
            return
        if isinstance(parsed, str):
            self.seal(parsed)
        else:
            self.event(parsed, number)

    def seal(self, note: str) -> None:
        self.sealed = True
        header = self.report.header
        assert header is not None
        try:
            lines, digest = parse_seal(note, origin=header.origin)
            note_verify(parse_note(note), header.log_keys)
        except (BundleError, NoteError) as exc:
            self.report.problems.append(f"the seal does not verify: {exc}")
            return
        if lines != self.lines:
            self.report.problems.append(
                f"the seal does not match the bundle: it covers {lines} lines, {self.lines} precede it "
                "(lines were added or removed)"
            )
        elif digest != self.digest.digest():
            self.report.problems.append(
                f"the seal does not match the bundle: the {lines} lines before it are not those it sealed "
                "(a line was changed)"
            )

    def event(self, entry: BundledEvent, number: int) -> None:
        self.report.events += 1
        where = f"line {number} (leaf {entry.leaf_index})"
        if entry.leaf_index <= self.last_leaf:
            self.report.problems.append(f"{where}: events are not in increasing leaf order")
        self.last_leaf = max(self.last_leaf, entry.leaf_index)
        try:
            event = parse_event(entry.raw.encode("utf-8"))
            digest = content_hash(canonical_json(event))
        except (EventParseError, CanonicalizationError) as exc:
            self.report.problems.append(f"{where}: not an event: {exc}")
            return
        problems: list[str] = []
        if self.checkpoint is not None:
            try:
                verify_inclusion(
                    index=entry.leaf_index,
                    size=self.checkpoint.size,
                    leaf=event_leaf_hash(content_hash=digest, accepted_at=entry.accepted_at),
                    path=list(entry.audit_path),
                    root=self.checkpoint.root_hash,
                )
            except ProofError as exc:
                problems.append(f"not in the log as bundled: {exc}")
        verification = check_event(event, keys=self.keys)
        if not verification.ok:
            problems.append(f"signature {verification.status.value}: {verification.detail}")
        self.place(event, digest, problems, where)

    def place(self, event: dict[str, Any], digest: str, problems: list[str], where: str) -> None:
        """Count the event in its stream (a link or a heartbeat) or as unchained; file its problems there."""
        try:
            signature = read_signature(event)
        except SignatureFormatError:
            signature = None
        stream, seq, kind = self.position(event, signature)
        if stream is None or signature is None:
            producer = self.producers.get(signature.key_id, signature.key_id) if signature else None
            self.report.unchained[producer or str(event.get("producer", ""))[:200]] += 1
            self.report.problems += [f"{where}, unchained: {p}" for p in problems]
            return
        verdict = self.report.streams.get(stream)
        if verdict is None:
            producer = self.producers.get(signature.key_id, signature.key_id)
            verdict = self.report.streams[stream] = StreamVerdict(stream, signature.key_id, producer)
        label = f"seq {seq}" if kind == "link" else f"heartbeat of seq {seq}"
        verdict.problems += [f"{label}, {where}: {p}" for p in problems]
        if problems:  # only a sound event counts in its chain: this seq shows as missing too
            return
        if kind == "link":
            assert signature.chain is not None
            verdict.seqs.add(seq, digest)
            if signature.chain.prev is not None and seq > 1:
                verdict.prevs.add(seq, signature.chain.prev)
        else:
            beat = read_heartbeat(event, key=signature.key_id)
            verdict.announced = max(verdict.announced, beat.seq)
            if beat.head is not None:
                verdict.heads.add(beat.seq, beat.head)

    @staticmethod
    def position(event: dict[str, Any], signature: Signature | None) -> tuple[str | None, int, str]:
        """The stream and seq an event claims: its chain link, or the heartbeat it is (`None` if neither)."""
        if signature is None:
            return None, 0, ""
        if is_heartbeat(event):
            try:
                beat = read_heartbeat(event, key=signature.key_id)
            except SignatureFormatError:
                return None, 0, ""
            return beat.stream, beat.seq, "heartbeat"
        if signature.chain is not None:
            return signature.chain.stream, signature.chain.seq, "link"
        return None, 0, ""


def bundle_verify(path: str | Path) -> AuditReport:
    """Verify the bundle at `path` (gzip-compressed or not); raises `OSError` only if it cannot be read at all."""
    report = AuditReport(path=str(path))
    with open(path, "rb") as raw:
        compressed = raw.read(2) == GZIP_MAGIC
        raw.seek(0)
        handle: BufferedIOBase = gzip.GzipFile(fileobj=raw, mode="rb") if compressed else raw
        verifier = _Verifier(report)
        try:
            verifier.run(_lines(handle))
        except BundleError as exc:
            report.problems.append(str(exc))
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            report.problems.append(f"the bundle is not a whole gzip file: {exc}")
    if report.header is not None:
        whole = not report.header.selection.get("from")
        for verdict in report.streams.values():
            verdict.settle(whole=whole)
    elif not report.problems:
        report.problems.append("the bundle is empty")
    return report
