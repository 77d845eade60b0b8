"""Witnessing a transparency log: C2SP Ed25519 cosignatures, the consistency check before one, the state kept on disk.

A witness holds the last checkpoint it cosigned (size and root). Offered a newer one, it checks the
log's signature, then that the new tree extends the old (an RFC 9162 consistency proof) and only then
cosigns: `— <witness name> base64(key id || u64 timestamp || Ed25519 signature)`, over
`cosignature/v1 LF time <timestamp> LF` and the checkpoint's text (https://c2sp.org/tlog-cosignature),
key id SHA-256(name || LF || 0x04 || public key)[:4]. Its state is written to disk before the
cosignature leaves, so a restarted witness cannot be led to accept a rolled-back log. A checkpoint that
is smaller than, forks from, or does not extend the one cosigned is refused (`WitnessRefusal`), and the
refusal is reported as a signed note (`refusal_note`) a server can check came from this witness.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from lineage_protocol.merkle import ProofError, verify_consistency
from lineage_protocol.note import (
    KEY_HASH_SIZE,
    Checkpoint,
    Note,
    NoteError,
    NoteSignature,
    NoteVerifier,
    checkpoint_open,
    note_sign,
)

COSIGNATURE_HEADER = "cosignature/v1"
COSIGNATURE_TYPE = b"\x04"
REFUSAL_HEADER = "tributary witness refusal v1"
_TIMESTAMP_SIZE = 8
_ED25519_SIGNATURE_SIZE = 64
_NAME_RE = re.compile(r"[^\s+]{1,200}")


class RefusalKind(StrEnum):
    """Why a witness refused a checkpoint."""

    ROLLBACK = "rollback"  # smaller than the one it cosigned
    FORK = "fork"  # its size, another root
    INCONSISTENT = "inconsistent"  # larger, but the log cannot prove it extends the one cosigned
    UNVERIFIED = "unverified"  # not a checkpoint of this log signed by its key


class WitnessRefusal(Exception):
    """The witness will not cosign the offered checkpoint: `kind`, and the reason in words."""

    def __init__(self, kind: RefusalKind, reason: str, *, offered: Checkpoint | None) -> None:
        super().__init__(reason)
        self.kind, self.reason, self.offered = kind, reason, offered


class WitnessStateError(ValueError):
    """The witness's state file is unreadable: the witness stops rather than forget what it cosigned."""


@dataclass(frozen=True, slots=True)
class WitnessState:
    """The last checkpoint this witness cosigned for log `origin`."""

    origin: str
    size: int
    root_hash: bytes


def _check_name(name: str) -> str:
    if not _NAME_RE.fullmatch(name):
        raise NoteError(f"witness name {name!r} must be 1 to 200 characters, with no spaces and no '+'")
    return name


def cosigner_key_hash(name: str, public_key: Ed25519PublicKey) -> bytes:
    """The cosigner key id: SHA-256(name || 0x0A || 0x04 || public key)[:4]."""
    material = _check_name(name).encode("utf-8") + b"\n" + COSIGNATURE_TYPE + public_key.public_bytes_raw()
    return hashlib.sha256(material).digest()[:KEY_HASH_SIZE]


def cosigner_vkey(name: str, public_key: Ed25519PublicKey) -> str:
    """The witness's verifier key, `<name>+<hex key id>+<base64(0x04 || public key)>`, for a log to register."""
    encoded = base64.b64encode(COSIGNATURE_TYPE + public_key.public_bytes_raw()).decode("ascii")
    return f"{name}+{cosigner_key_hash(name, public_key).hex()}+{encoded}"


def parse_cosigner_vkey(text: str) -> tuple[str, Ed25519PublicKey]:
    """A witness's verifier key, checked against its own key id: its name and public key."""
    name, plus, rest = text.strip().partition("+")
    key_hex, plus2, encoded = rest.partition("+")
    if not (plus and plus2) or len(key_hex) != 2 * KEY_HASH_SIZE:
        raise NoteError("a witness key is <name>+<8 hex digits>+<base64 key>")
    try:
        raw = base64.b64decode(encoded, validate=True)
    except ValueError:
        raise NoteError("the witness key is not standard base64") from None
    if len(raw) != 33 or raw[:1] != COSIGNATURE_TYPE:
        raise NoteError("the witness key is not an Ed25519 cosigner key (type 0x04 and 32 bytes)")
    public_key = Ed25519PublicKey.from_public_bytes(raw[1:])
    if cosigner_key_hash(_check_name(name), public_key).hex() != key_hex:
        raise NoteError("the witness key's id does not match its name and key")
    return name, public_key


def cosignature_message(text: str, timestamp: int) -> bytes:
    """What a cosignature signs: the header line, the time line, the checkpoint's text."""
    return f"{COSIGNATURE_HEADER}\ntime {timestamp}\n{text}".encode()


def cosign(text: str, *, name: str, private_key: Ed25519PrivateKey, timestamp: int) -> NoteSignature:
    """Cosign a checkpoint's text at `timestamp` (POSIX seconds)."""
    if not 0 <= timestamp < 1 << 63:
        raise NoteError("a cosignature's timestamp is from 0 to 2^63 - 1")
    signature = private_key.sign(cosignature_message(text, timestamp))
    key_hash = cosigner_key_hash(name, private_key.public_key())
    return NoteSignature(name, key_hash, timestamp.to_bytes(_TIMESTAMP_SIZE, "big") + signature)


def cosignature_verify(text: str, signature: NoteSignature, *, name: str, public_key: Ed25519PublicKey) -> int:
    """The timestamp of `signature`, a cosignature of `text` by witness `name`; `NoteError` if it is not one."""
    if signature.name != name or signature.key_hash != cosigner_key_hash(name, public_key):
        raise NoteError(f"the cosignature is not by witness key {name} ({cosigner_key_hash(name, public_key).hex()})")
    if len(signature.signature) != _TIMESTAMP_SIZE + _ED25519_SIGNATURE_SIZE:
        raise NoteError("an Ed25519 cosignature is an 8-byte timestamp and a 64-byte signature")
    timestamp = int.from_bytes(signature.signature[:_TIMESTAMP_SIZE], "big")
    if timestamp >= 1 << 63:
        raise NoteError("a cosignature's timestamp is from 0 to 2^63 - 1")
    try:
        public_key.verify(signature.signature[_TIMESTAMP_SIZE:], cosignature_message(text, timestamp))
    except InvalidSignature:
        raise NoteError(f"the cosignature of {name} does not verify") from None
    return timestamp


def witness_check(
    note: str,
    *,
    log: NoteVerifier,
    state: WitnessState | None,
    consistency: Callable[[int, int], Sequence[bytes]],
) -> Checkpoint:
    """The checkpoint of `note` if this witness may cosign it: signed by `log` (whose key name is the log's
    origin) and extending `state`, proven by `consistency(old size, new size)`; else `WitnessRefusal`."""
    try:
        offered = checkpoint_open(note, verifiers=[log], origin=log.name)
    except NoteError as error:
        raise WitnessRefusal(RefusalKind.UNVERIFIED, f"the checkpoint does not verify: {error}", offered=None) from None
    if state is None:
        return offered  # the first checkpoint this witness sees (trust on first use, as tlog-witness)
    if offered.size < state.size:
        raise WitnessRefusal(
            RefusalKind.ROLLBACK,
            f"the log offers tree size {offered.size}, smaller than size {state.size} this witness cosigned",
            offered=offered,
        )
    if offered.size == state.size:
        if offered.root_hash != state.root_hash:
            raise WitnessRefusal(
                RefusalKind.FORK,
                f"tree size {offered.size} has another root than the one this witness cosigned: a forked history",
                offered=offered,
            )
        return offered
    try:
        proof = consistency(state.size, offered.size)
        verify_consistency(
            first=state.size,
            second=offered.size,
            first_root=state.root_hash,
            second_root=offered.root_hash,
            path=proof,
        )
    except ProofError as error:
        raise WitnessRefusal(
            RefusalKind.INCONSISTENT,
            f"tree size {offered.size} does not extend size {state.size} this witness cosigned: {error}",
            offered=offered,
        ) from None
    return offered


def refusal_note(
    refusal: WitnessRefusal,
    *,
    origin: str,
    state: WitnessState | None,
    name: str,
    private_key: Ed25519PrivateKey,
    timestamp: int,
) -> str:
    """A signed note saying this witness refused a checkpoint of `origin`, what it had cosigned, and why."""
    offered = refusal.offered
    cosigned = state or WitnessState(origin, 0, b"")
    lines = [
        REFUSAL_HEADER,
        origin,
        refusal.kind.value,
        str(cosigned.size),
        base64.b64encode(cosigned.root_hash).decode("ascii") or "-",
        str(offered.size) if offered else "-",
        base64.b64encode(offered.root_hash).decode("ascii") if offered else "-",
        str(timestamp),
        " ".join(refusal.reason.split()) or "-",
    ]
    text = "".join(f"{line}\n" for line in lines)
    return Note(text=text, signatures=(note_sign(text, name=name, private_key=private_key),)).serialise()


@dataclass(frozen=True, slots=True)
class Refusal:
    """A refusal report as a server reads it (the note's signature checked by the caller)."""

    origin: str
    kind: RefusalKind
    cosigned_size: int
    cosigned_root: bytes
    offered_size: int | None
    offered_root: bytes | None
    timestamp: int
    reason: str


def refusal_read(note: Note) -> Refusal:
    """What a refusal report's text says; `NoteError` if it is not one."""
    lines = note.text.split("\n")[:-1]
    if len(lines) != 9 or lines[0] != REFUSAL_HEADER:
        raise NoteError(f"a refusal report is the line {REFUSAL_HEADER!r} and eight more")
    _, origin, kind, size, root, offered_size, offered_root, timestamp, reason = lines
    try:
        return Refusal(
            origin=origin,
            kind=RefusalKind(kind),
            cosigned_size=_decimal(size),
            cosigned_root=b"" if root == "-" else base64.b64decode(root, validate=True),
            offered_size=None if offered_size == "-" else _decimal(offered_size),
            offered_root=None if offered_root == "-" else base64.b64decode(offered_root, validate=True),
            timestamp=_decimal(timestamp),
            reason=reason,
        )
    except ValueError as error:
        raise NoteError(f"a refusal report's line is malformed: {error}") from None


def _decimal(text: str) -> int:
    if not re.fullmatch(r"0|[1-9][0-9]{0,18}", text):
        raise ValueError(f"{text[:30]!r} is not a decimal size or time")
    return int(text)


def witness_state_load(path: Path) -> WitnessState | None:
    """The state kept at `path`, or None when the witness has cosigned nothing yet."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return WitnessState(
            origin=str(data["origin"]), size=int(data["size"]), root_hash=base64.b64decode(data["root"], validate=True)
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise WitnessStateError(
            f"the witness state {path} is unreadable ({error}): restore it, do not delete it"
        ) from None


def witness_state_save(path: Path, state: WitnessState) -> None:
    """Write the state durably: a new file synced, then renamed over the old one; `WitnessStateError` if it
    cannot be written (the cosignature must not leave then)."""
    try:
        _write_synced(path, state)
    except OSError as error:
        raise WitnessStateError(f"the witness state {path} cannot be written: {error}") from None


def _write_synced(path: Path, state: WitnessState) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"origin": state.origin, "size": state.size, "root": base64.b64encode(state.root_hash).decode("ascii")}
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(body, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
