"""The offline audit bundle's format, `tributary-audit-bundle` version 1: what the server writes, what a verifier reads.

A bundle is JSON Lines (docs/ledger.md, "Offline audit"), each line the RFC 8785 canonical JSON of one object
and a line feed, so every byte has one meaning:

1. the header: the log's origin, the selection, the checkpoints (signed notes, each with its witnesses'
   cosignature lines), the consistency proofs between consecutive ones, the tree size the inclusion proofs are
   against (`checkpoint`), the log's, the witnesses' and the producers' public keys;
2. one line per selected event, in leaf order: its leaf index, acceptance instant, bytes as accepted (`raw`)
   and inclusion proof;
3. the seal: a note signed with the log's key over the number of lines before it and their SHA-256, so the
   server vouches for the bundle as a whole (nothing left out, nothing added).

Reading is strict: an unknown or missing member, a value of the wrong type, a line that is not canonical raises
`BundleError` saying which line and member, and nothing else.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from rfc8785 import CanonicalizationError

from lineage_protocol.canonical import canonical_json
from lineage_protocol.merkle import ProofError, accepted_text, hashes_from_text
from lineage_protocol.note import Note, NoteError, NoteVerifier, parse_note, parse_vkey
from lineage_protocol.signature import EventParseError, load_public_key, parse_event
from lineage_protocol.witness import parse_cosigner_vkey

FORMAT = "tributary-audit-bundle"
VERSION = 1
SEAL_TITLE = "tributary audit bundle v1"
# A line holds at most one event as the API accepts it (1 MiB by default), escaped: far below this.
MAX_LINE_BYTES = 64 * 1024 * 1024
MAX_CHECKPOINTS = 1000
MAX_KEYS = 10_000
_INSTANT_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")
_DIGEST_RE = re.compile(r"[A-Za-z0-9+/]{43}=")
_MAX_INDEX = (1 << 64) - 1

_HEADER_MEMBERS = {
    "format",
    "version",
    "origin",
    "createdAt",
    "selection",
    "checkpoint",
    "checkpoints",
    "consistency",
    "logKeys",
    "witnessKeys",
    "producerKeys",
}
SELECTION_MEMBERS = ("producer", "namespace", "from", "to")
_EVENT_MEMBERS = {"leafIndex", "acceptedAt", "raw", "auditPath"}


class BundleError(ValueError):
    """A bundle line that is malformed: not canonical JSON, a missing or unknown member, a value of the wrong type."""


@dataclass(frozen=True, slots=True)
class BundledKey:
    """A producer's public key as the bundle names it."""

    producer: str
    key_id: str
    public_key_pem: str


@dataclass(frozen=True, slots=True)
class BundleCheckpoint:
    """A checkpoint as bundled: the server's signed note and the witnesses' cosignature lines on it."""

    note: str
    cosignatures: tuple[str, ...] = ()

    def cosigned(self) -> Note:
        """The note's text with the cosignature lines as its signatures (`NoteError` if one is malformed)."""
        text = parse_note(self.note).text
        return parse_note(text + "\n" + "".join(self.cosignatures)) if self.cosignatures else Note(text, ())


@dataclass(frozen=True, slots=True)
class BundleConsistency:
    """A consistency proof between two bundled checkpoints' tree sizes."""

    first: int
    second: int
    proof: tuple[bytes, ...]


@dataclass(frozen=True, slots=True)
class Header:
    """The first line of a bundle."""

    origin: str
    created_at: str
    selection: Mapping[str, Any]
    checkpoint: int
    checkpoints: tuple[BundleCheckpoint, ...]
    consistency: tuple[BundleConsistency, ...]
    log_keys: tuple[NoteVerifier, ...]
    witness_keys: tuple[tuple[str, Ed25519PublicKey], ...]  # (name, key): C2SP cosigner keys
    producer_keys: tuple[BundledKey, ...]


@dataclass(frozen=True, slots=True)
class BundledEvent:
    """One event line: the leaf it is, when the server accepted it, its bytes as accepted, its inclusion proof."""

    leaf_index: int
    accepted_at: datetime
    raw: str
    audit_path: tuple[bytes, ...]


def bundle_line(value: Mapping[str, Any]) -> bytes:
    """One line of a bundle: the canonical JSON of `value` and a line feed."""
    return canonical_json(value) + b"\n"


def bundle_header(
    *,
    origin: str,
    created_at: str,
    selection: Mapping[str, Any],
    checkpoint: int,
    checkpoints: Sequence[BundleCheckpoint],
    consistency: Sequence[BundleConsistency],
    log_keys: Sequence[str],
    witness_keys: Sequence[str],
    producer_keys: Sequence[BundledKey],
) -> dict[str, Any]:
    """The header line's object (keys are verifier keys, `<name>+<hex id>+<base64>`; producers' keys PEM)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "origin": origin,
        "createdAt": created_at,
        "selection": dict(selection),
        "checkpoint": checkpoint,
        "checkpoints": [{"note": c.note, "cosignatures": list(c.cosignatures)} for c in checkpoints],
        "consistency": [{"from": c.first, "to": c.second, "proof": [_b64(h) for h in c.proof]} for c in consistency],
        "logKeys": list(log_keys),
        "witnessKeys": list(witness_keys),
        "producerKeys": [
            {"producer": k.producer, "keyId": k.key_id, "publicKey": k.public_key_pem} for k in producer_keys
        ],
    }


def bundle_event(*, leaf_index: int, accepted_at: datetime, raw: bytes, audit_path: Sequence[bytes]) -> dict[str, Any]:
    """An event line's object: `raw` is the accepted bytes as a string (they are UTF-8 JSON)."""
    return {
        "leafIndex": leaf_index,
        "acceptedAt": accepted_text(accepted_at),
        "raw": raw.decode("utf-8"),
        "auditPath": [_b64(h) for h in audit_path],
    }


def bundle_seal_text(*, origin: str, lines: int, digest: bytes) -> str:
    """The text the seal's note signs: its title, the log, the lines before the seal and their SHA-256."""
    return f"{SEAL_TITLE}\n{origin}\n{lines}\n{_b64(digest)}\n"


def _b64(value: bytes) -> str:
    return base64.b64encode(value).decode("ascii")


def _decoded(line: bytes, number: int) -> dict[str, Any]:
    """The object a line holds, checked to be written canonically (so it has one spelling)."""
    if not line.endswith(b"\n"):
        raise BundleError(f"line {number}: does not end with a line feed (the bundle is cut short?)")
    try:
        value = parse_event(line[:-1])
    except EventParseError as exc:
        raise BundleError(f"line {number}: not a JSON object: {exc}") from None
    try:
        canonical = canonical_json(value)
    except CanonicalizationError as exc:
        raise BundleError(f"line {number}: holds a value JSON cannot canonicalise: {exc}") from None
    if canonical != line[:-1]:
        raise BundleError(f"line {number}: not written canonically (RFC 8785)")
    return value


def _members(value: Mapping[str, Any], expected: set[str], where: str) -> None:
    missing, unknown = expected - value.keys(), value.keys() - expected
    if missing:
        raise BundleError(f"{where}: missing {', '.join(sorted(missing))}")
    if unknown:
        raise BundleError(f"{where}: unknown member {sorted(unknown)[0]!r}")


_KINDS = {str: "a string", int: "an integer", list: "a list", dict: "an object"}


def _typed(value: Mapping[str, Any], name: str, kind: type, where: str) -> Any:
    found = value[name]
    if isinstance(found, bool) or not isinstance(found, kind):
        raise BundleError(f"{where}: `{name}` must be {_KINDS[kind]}")
    return found


def _index(value: Mapping[str, Any], name: str, where: str) -> int:
    found = _typed(value, name, int, where)
    if not 0 <= found <= _MAX_INDEX:
        raise BundleError(f"{where}: `{name}` must be from 0 to 2^64 - 1")
    return int(found)


def _list(value: Mapping[str, Any], name: str, where: str, limit: int) -> list[Any]:
    found = _typed(value, name, list, where)
    if len(found) > limit:
        raise BundleError(f"{where}: `{name}` has more than {limit} entries")
    return list(found)


def _strings(value: Mapping[str, Any], name: str, where: str, limit: int) -> list[str]:
    found = _list(value, name, where, limit)
    if not all(isinstance(item, str) for item in found):
        raise BundleError(f"{where}: each of `{name}` must be a string")
    return found


def _vkeys(values: list[str], name: str, where: str) -> tuple[NoteVerifier, ...]:
    try:
        return tuple(parse_vkey(value) for value in values)
    except NoteError as exc:
        raise BundleError(f"{where}: `{name}`: {exc}") from None


def _cosigner_vkeys(values: list[str], where: str) -> tuple[tuple[str, Ed25519PublicKey], ...]:
    try:
        return tuple(parse_cosigner_vkey(value) for value in values)
    except NoteError as exc:
        raise BundleError(f"{where}: `witnessKeys`: {exc}") from None


def _instant(text: Any, name: str, where: str) -> datetime:
    """An instant as bundles write them: UTC, microseconds, `Z` (`accepted_text`)."""
    if not isinstance(text, str) or not _INSTANT_RE.fullmatch(text):
        raise BundleError(f"{where}: `{name}` must be YYYY-MM-DDTHH:MM:SS.ffffffZ")
    try:
        return _parsed_instant(text)
    except ValueError as exc:
        raise BundleError(f"{where}: `{name}`: {exc}") from None


@functools.lru_cache(maxsize=256)
def _parsed_instant(text: str) -> datetime:
    # Events accepted together share their instant: a bundle repeats each one up to a batch's size.
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def _selection(value: Mapping[str, Any], where: str) -> dict[str, str | None]:
    selection = _typed(value, "selection", dict, where)
    _members(selection, set(SELECTION_MEMBERS), f"{where}, selection")
    for name in SELECTION_MEMBERS:
        if selection[name] is not None and not isinstance(selection[name], str):
            raise BundleError(f"{where}, selection: `{name}` must be a string or null")
    for name in ("from", "to"):
        if selection[name] is not None:
            _instant(selection[name], name, f"{where}, selection")
    return dict(selection)


def parse_header(line: bytes) -> Header:
    """The header, line 1; `BundleError` if it is not a version 1 header."""
    where = "line 1 (header)"
    value = _decoded(line, 1)
    if value.get("format") != FORMAT:
        raise BundleError(f"{where}: not a {FORMAT} (its `format` is {str(value.get('format'))[:40]!r})")
    if value.get("version") != VERSION or isinstance(value.get("version"), bool):
        raise BundleError(f"{where}: version {str(value.get('version'))[:20]!r}; this verifier reads version {VERSION}")
    _members(value, _HEADER_MEMBERS, where)
    checkpoints = []
    for n, entry in enumerate(_list(value, "checkpoints", where, MAX_CHECKPOINTS)):
        at = f"{where}, checkpoints[{n}]"
        if not isinstance(entry, dict):
            raise BundleError(f"{at}: must be an object")
        _members(entry, {"note", "cosignatures"}, at)
        cosignatures = _strings(entry, "cosignatures", at, MAX_KEYS)
        if not all(line.endswith("\n") and line.count("\n") == 1 for line in cosignatures):
            raise BundleError(f"{at}: each cosignature is one signature line, ending with a line feed")
        checkpoints.append(BundleCheckpoint(_typed(entry, "note", str, at), tuple(cosignatures)))
    consistency = []
    for n, entry in enumerate(_list(value, "consistency", where, MAX_CHECKPOINTS)):
        at = f"{where}, consistency[{n}]"
        if not isinstance(entry, dict):
            raise BundleError(f"{at}: must be an object")
        _members(entry, {"from", "to", "proof"}, at)
        try:
            proof = hashes_from_text(entry["proof"], "proof")
        except ProofError as exc:
            raise BundleError(f"{at}: {exc}") from None
        consistency.append(BundleConsistency(_index(entry, "from", at), _index(entry, "to", at), tuple(proof)))
    producer_keys = []
    for n, entry in enumerate(_list(value, "producerKeys", where, MAX_KEYS)):
        at = f"{where}, producerKeys[{n}]"
        if not isinstance(entry, dict):
            raise BundleError(f"{at}: must be an object")
        _members(entry, {"producer", "keyId", "publicKey"}, at)
        producer_keys.append(
            BundledKey(
                _typed(entry, "producer", str, at), _typed(entry, "keyId", str, at), _typed(entry, "publicKey", str, at)
            )
        )
    return Header(
        origin=_typed(value, "origin", str, where),
        created_at=accepted_text(_instant(value["createdAt"], "createdAt", where)),
        selection=_selection(value, where),
        checkpoint=_index(value, "checkpoint", where),
        checkpoints=tuple(checkpoints),
        consistency=tuple(consistency),
        log_keys=_vkeys(_strings(value, "logKeys", where, MAX_KEYS), "logKeys", where),
        witness_keys=_cosigner_vkeys(_strings(value, "witnessKeys", where, MAX_KEYS), where),
        producer_keys=tuple(producer_keys),
    )


def producer_public_key(key: BundledKey) -> Any:
    """The Ed25519 key of a bundled producer key; `BundleError` if its PEM is not one."""
    try:
        return load_public_key(key.public_key_pem.encode("ascii", "replace"))
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise BundleError(f"producer key {key.key_id[:48]!r} of {key.producer[:80]!r}: {exc}") from None


def is_seal(value: Mapping[str, Any]) -> bool:
    return "seal" in value


def parse_line(line: bytes, number: int) -> BundledEvent | str:
    """An event line, or the seal's note (the text of a seal line); `BundleError` if it is neither."""
    value = _decoded(line, number)
    if is_seal(value):
        _members(value, {"seal"}, f"line {number} (seal)")
        return str(_typed(value, "seal", str, f"line {number} (seal)"))
    where = f"line {number}"
    _members(value, _EVENT_MEMBERS, where)
    accepted = _instant(value["acceptedAt"], "acceptedAt", where)
    try:
        path = hashes_from_text(value["auditPath"], "auditPath")
    except ProofError as exc:
        raise BundleError(f"{where}: {exc}") from None
    return BundledEvent(
        leaf_index=_index(value, "leafIndex", where),
        accepted_at=accepted,
        raw=_typed(value, "raw", str, where),
        audit_path=tuple(path),
    )


def parse_seal(note: str, *, origin: str) -> tuple[int, bytes]:
    """The line count and digest a seal's note states; `BundleError` if it is not a seal of log `origin`."""
    try:
        text = parse_note(note).text
    except NoteError as exc:
        raise BundleError(f"the seal: {exc}") from None
    lines = text.split("\n")
    if len(lines) != 5 or lines[0] != SEAL_TITLE or lines[4]:
        raise BundleError(f"the seal's text is not '{SEAL_TITLE}', the origin, a line count and a digest")
    if lines[1] != origin:
        raise BundleError(f"the seal is of log {lines[1][:80]!r}, not {origin!r}")
    if not re.fullmatch(r"[1-9][0-9]{0,18}", lines[2]) or not _DIGEST_RE.fullmatch(lines[3]):
        raise BundleError("the seal's line count or digest is malformed")
    try:
        digest = base64.b64decode(lines[3], validate=True)
    except (binascii.Error, ValueError):
        raise BundleError("the seal's digest is not base64") from None
    if _b64(digest) != lines[3]:
        raise BundleError("the seal's digest is not canonical base64")
    return int(lines[2]), digest
