"""Ed25519 signatures over RFC 8785 canonical bytes, carried in a custom OpenLineage run facet."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from rfc8785 import CanonicalizationError

from lineage_protocol.canonical import canonical_json_of_any

SIGNATURE_FACET = "tributary_signature"
ALGORITHM = "Ed25519"
# Identifiers that signed events carry: they name `spark_agent/`, where the protocol was first published, and
# stay so (the schema now lives in `lineage_protocol/schemas/`); changing them is a protocol change.
DEFAULT_PRODUCER = "https://github.com/tributary/tributary/tree/0.1.0/spark_agent"
SCHEMA_URL = "https://github.com/tributary/tributary/blob/main/spark_agent/schemas/TributarySignatureRunFacet.json"

# Version 1 (no `version` member) signs the event without the facet. Version 2 adds a chain position
# (`stream`, `seq`, `prev`) and signs the event with the facet minus its `signature` member, so the
# position is signed too. Both verify; a producer writes version 2 only when it chains.
CHAINED_VERSION = 2
_KEY_ID_PREFIX = "ed25519:"
_KEY_ID_RE = re.compile(r"ed25519:[0-9a-f]{32}")
_HASH_RE = re.compile(r"[0-9a-f]{64}")
_SIGNATURE_BYTES = 64
# A stream is `<keyId>/<instance>`; the instance names the producer process (a Spark application, a relay).
STREAM_MAX_LENGTH = 200
_INSTANCE_RE = re.compile(r"[A-Za-z0-9._:@-]{1,150}")


class SignatureFormatError(ValueError):
    """The `tributary_signature` facet is present but not well-formed."""


class EventParseError(ValueError):
    """The bytes are not one JSON object that canonicalisation can rely on."""


@dataclass(frozen=True, slots=True)
class ChainLink:
    """An event's place in its producer's chain: `seq` (1, 2, 3, ...) in `stream`, after the event whose
    content hash is `prev` (`None` only for a stream's first event when no earlier head was kept)."""

    stream: str
    seq: int
    prev: str | None


@dataclass(frozen=True, slots=True)
class Signature:
    """A parsed `tributary_signature` facet; `chain` is set for version 2."""

    algorithm: str
    key_id: str
    signature: bytes
    chain: ChainLink | None = None


def stream_name(key: str, instance: str) -> str:
    """The stream of one producer instance signing with key id `key`: `<keyId>/<instance>`."""
    if not _INSTANCE_RE.fullmatch(instance):
        raise ValueError(f"stream instance {instance!r} must be 1-150 of A-Z a-z 0-9 . _ : @ -")
    return f"{key}/{instance}"


def stream_problem(stream: Any, key: str) -> str:
    """Why `stream` is not a well-formed stream of key id `key`; empty when it is."""
    if not isinstance(stream, str):
        return "`stream` is not a string"
    owner, _, instance = stream.partition("/")
    if owner != key:
        return f"`stream` {stream[:80]!r} does not belong to key {key}"
    if not _INSTANCE_RE.fullmatch(instance):
        return "`stream` instance must be 1-150 of A-Z a-z 0-9 . _ : @ -"
    return ""


def hash_problem(value: Any, name: str) -> str:
    """Why `value` is not a content hash (64 lowercase hex digits); empty when it is."""
    if isinstance(value, str) and _HASH_RE.fullmatch(value):
        return ""
    return f"`{name}` is not a content hash (64 lowercase hex digits)"


def seq_problem(value: Any, name: str, *, least: int) -> str:
    """Why `value` is not an integer from `least` up (within JSON's exact range); empty when it is."""
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= 2**53 - 1:
        return f"`{name}` is not an integer from {least} up"
    return ""


class VerificationStatus(StrEnum):
    """An event's signature status: the server stores and shows these values, and the audit CLI reports them.

    `check_event` finds the first four from the event and a key set alone; the last three need the
    server's key registry (a key's lifecycle and the namespaces it may sign for).
    """

    VERIFIED = "VERIFIED"
    UNSIGNED = "UNSIGNED"
    INVALID_SIGNATURE = "INVALID_SIGNATURE"
    UNKNOWN_KEY = "UNKNOWN_KEY"
    REVOKED_KEY = "REVOKED_KEY"
    RETIRED_KEY = "RETIRED_KEY"
    NAMESPACE_NOT_ALLOWED = "NAMESPACE_NOT_ALLOWED"


class SignatureProblem(StrEnum):
    """Why a signature is `INVALID_SIGNATURE`: the facet cannot be read, or it does not match the event."""

    MALFORMED = "malformed"
    MISMATCH = "mismatch"


@dataclass(frozen=True, slots=True)
class Verification:
    """What `check_event` found: a status, the claimed key id (if readable), why, and for an invalid one which way."""

    status: VerificationStatus
    key_id: str | None = None
    detail: str = ""
    problem: SignatureProblem | None = None

    @property
    def ok(self) -> bool:
        return self.status is VerificationStatus.VERIFIED


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unsigned_view(event: Mapping[str, Any]) -> dict[str, Any]:
    """What the signature covers: for version 1 the event without its signature facet, for version 2
    the event with the facet minus its `signature` member. Copies only the dicts on the path to it."""
    top = dict(event)
    run = top.get("run")
    if isinstance(run, Mapping):
        facets = run.get("facets")
        if isinstance(facets, Mapping) and SIGNATURE_FACET in facets:
            facets = dict(facets)
            facet = facets.pop(SIGNATURE_FACET)
            if isinstance(facet, Mapping) and "version" in facet:
                facets[SIGNATURE_FACET] = {name: value for name, value in facet.items() if name != "signature"}
            top["run"] = {**run, "facets": facets}
    return top


def canonical_bytes(event: Mapping[str, Any]) -> bytes:
    """RFC 8785 (JCS) bytes of what the signature of `event` covers: the event with
    `run.facets.tributary_signature` removed (version 1), or with only its `signature` member removed
    (version 2, whose facet carries the chain position).

    Raises `CanonicalizationError` (a `ValueError`) for values JCS cannot represent:
    integers beyond +-(2**53 - 1), NaN or infinite floats, lone surrogates, non-string keys,
    and for nesting deeper than the interpreter's recursion limit.
    """
    try:
        return canonical_json_of_any(_unsigned_view(event))
    except RecursionError:
        raise CanonicalizationError("event is nested too deeply to canonicalise") from None


def key_id(public_key: Ed25519PublicKey) -> str:
    """`ed25519:` + lowercase hex of the first 16 bytes of SHA-256 over the raw 32-byte key."""
    return _KEY_ID_PREFIX + hashlib.sha256(public_key.public_bytes_raw()).digest()[:16].hex()


def generate_private_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def private_key_pem(private_key: Ed25519PrivateKey) -> str:
    """Unencrypted PKCS#8 PEM, the format `load_private_key` reads."""
    return private_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode("ascii")


def public_key_pem(public_key: Ed25519PublicKey) -> str:
    """SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`)."""
    return public_key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode(
        "ascii"
    )


def load_private_key(path: str | Path) -> Ed25519PrivateKey:
    """Read an unencrypted PKCS#8 PEM Ed25519 private key; `ValueError` if it is anything else."""
    key = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError(f"{path}: not an Ed25519 private key ({type(key).__name__})")
    return key


def load_public_key(data: str | bytes | Path) -> Ed25519PublicKey:
    """Read an Ed25519 public key from PEM bytes, PEM text, or a path (`Path` or `str`)."""
    if isinstance(data, bytes):
        pem = data
    elif isinstance(data, str) and data.lstrip().startswith("-----BEGIN"):
        pem = data.encode("ascii")
    else:
        pem = Path(data).read_bytes()
    key = serialization.load_pem_public_key(pem)
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError(f"not an Ed25519 public key ({type(key).__name__})")
    return key


def _run_facets(event: Mapping[str, Any]) -> Mapping[str, Any] | None:
    run = event.get("run") if isinstance(event, Mapping) else None
    facets = run.get("facets") if isinstance(run, Mapping) else None
    return facets if isinstance(facets, Mapping) else None


def sign_event(
    event: Mapping[str, Any],
    private_key: Ed25519PrivateKey,
    *,
    producer: str = DEFAULT_PRODUCER,
    chain: ChainLink | None = None,
) -> dict[str, Any]:
    """Return a new event carrying a `tributary_signature` run facet; `event` is not modified.

    With `chain` the facet is version 2: it carries the event's `stream`, `seq` and `prev`, and the
    signature covers them. Without, it is version 1, as every producer wrote before chains.

    `run.facets` is set to `{}` first if absent, and that is what gets signed. An existing
    signature facet is replaced. Only the top level, `run` and `run.facets` are copied;
    everything else is shared with `event`, so serialise the result before mutating `event`.
    Raises `ValueError` if the event has no `run` object, and `CanonicalizationError` for
    values JCS cannot represent.
    """
    run = event.get("run")
    if not isinstance(run, Mapping):
        raise ValueError("only run events can be signed: the event has no `run` object")
    facets = run.get("facets", {})
    if not isinstance(facets, Mapping):
        raise ValueError("`run.facets` must be an object")
    facets = {name: facet for name, facet in facets.items() if name != SIGNATURE_FACET}
    signed = {**event, "run": {**run, "facets": facets}}
    facet: dict[str, Any] = {
        "_producer": producer,
        "_schemaURL": SCHEMA_URL,
        "algorithm": ALGORITHM,
        "keyId": key_id(private_key.public_key()),
    }
    if chain is not None:
        problem = stream_problem(chain.stream, facet["keyId"]) or seq_problem(chain.seq, "seq", least=1)
        if chain.prev is not None:
            problem = problem or hash_problem(chain.prev, "prev")
        elif chain.seq > 1:
            problem = "`prev` is required after a stream's first event"
        if problem:
            raise ValueError(problem)
        facet.update(version=CHAINED_VERSION, stream=chain.stream, seq=chain.seq, prev=chain.prev)
        facets[SIGNATURE_FACET] = facet
    signature = private_key.sign(canonical_bytes(signed))
    facets[SIGNATURE_FACET] = {**facet, "signature": _b64url(signature)}
    return signed


def _decode_signature(value: str) -> bytes:
    try:
        raw = base64.urlsafe_b64decode(value + "==")
    except (binascii.Error, ValueError) as exc:
        raise SignatureFormatError(f"`signature` is not base64url: {exc}") from None
    # Re-encoding rejects padding, the standard alphabet, stray characters (which the
    # decoder skips) and non-zero trailing bits, so each signature has exactly one spelling.
    if _b64url(raw) != value:
        raise SignatureFormatError("`signature` is not unpadded canonical base64url")
    if len(raw) != _SIGNATURE_BYTES:
        raise SignatureFormatError(f"`signature` decodes to {len(raw)} bytes, an Ed25519 signature has 64")
    return raw


def read_signature(event: Mapping[str, Any]) -> Signature | None:
    """The event's signature, `None` if it has no signature facet.

    Raises `SignatureFormatError` if the facet is there but malformed.
    """
    facets = _run_facets(event)
    if facets is None or SIGNATURE_FACET not in facets:
        return None
    facet = facets[SIGNATURE_FACET]
    if not isinstance(facet, Mapping):
        raise SignatureFormatError(f"`{SIGNATURE_FACET}` must be an object")
    for field in ("_producer", "_schemaURL", "algorithm", "keyId", "signature"):
        if not isinstance(facet.get(field), str):
            problem = "missing" if field not in facet else "not a string"
            raise SignatureFormatError(f"`{field}` is {problem}")
    if facet["algorithm"] != ALGORITHM:
        raise SignatureFormatError(f"unsupported algorithm {facet['algorithm']!r}, expected {ALGORITHM!r}")
    if not _KEY_ID_RE.fullmatch(facet["keyId"]):
        raise SignatureFormatError(f"`keyId` {facet['keyId']!r} is not `ed25519:` + 32 lowercase hex digits")
    return Signature(
        algorithm=facet["algorithm"],
        key_id=facet["keyId"],
        signature=_decode_signature(facet["signature"]),
        chain=_read_chain(facet) if "version" in facet else None,
    )


def _read_chain(facet: Mapping[str, Any]) -> ChainLink:
    """The chain position of a version 2 facet; `SignatureFormatError` if it is not well-formed."""
    if facet["version"] != CHAINED_VERSION or isinstance(facet["version"], bool):
        raise SignatureFormatError(f"unsupported `version` {facet['version']!r}, expected {CHAINED_VERSION}")
    prev = facet.get("prev")
    problem = stream_problem(facet.get("stream"), facet["keyId"]) or seq_problem(facet.get("seq"), "seq", least=1)
    if prev is not None:
        problem = problem or hash_problem(prev, "prev")
    elif not problem and facet["seq"] > 1:
        problem = "`prev` is required after a stream's first event"
    if problem:
        raise SignatureFormatError(problem)
    return ChainLink(stream=facet["stream"], seq=facet["seq"], prev=prev)


def _matches(event: Mapping[str, Any], signature: Signature, public_key: Ed25519PublicKey) -> str:
    """Empty string if `signature` over `event` verifies with `public_key`, else the reason."""
    try:
        message = canonical_bytes(event)
    except CanonicalizationError as exc:
        return f"event cannot be canonicalised: {exc}"
    try:
        public_key.verify(signature.signature, message)
    except InvalidSignature:
        return f"event altered, or not signed by {signature.key_id}"
    return ""


def verify_event(event: Mapping[str, Any], public_key: Ed25519PublicKey) -> bool:
    """True iff the event carries a well-formed signature made by `public_key` over its bytes."""
    try:
        signature = read_signature(event)
    except SignatureFormatError:
        return False
    if signature is None or signature.key_id != key_id(public_key):
        return False
    return not _matches(event, signature, public_key)


def check_event(event: Mapping[str, Any], *, keys: Mapping[str, Ed25519PublicKey]) -> Verification:
    """Verify `event` against whichever of `keys` (key id -> public key) its facet names."""
    try:
        signature = read_signature(event)
    except SignatureFormatError as exc:
        return Verification(VerificationStatus.INVALID_SIGNATURE, detail=str(exc), problem=SignatureProblem.MALFORMED)
    if signature is None:
        return Verification(VerificationStatus.UNSIGNED, detail=f"no `{SIGNATURE_FACET}` facet")
    public_key = keys.get(signature.key_id)
    if public_key is None:
        return Verification(VerificationStatus.UNKNOWN_KEY, signature.key_id, f"no public key {signature.key_id}")
    reason = _matches(event, signature, public_key)
    if reason:
        return Verification(VerificationStatus.INVALID_SIGNATURE, signature.key_id, reason, SignatureProblem.MISMATCH)
    return Verification(VerificationStatus.VERIFIED, signature.key_id)


def _reject_constant(name: str) -> float:
    raise EventParseError(f"{name} is not valid JSON")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        keys = [key for key, _ in pairs]
        duplicate = next(key for key in keys if keys.count(key) > 1)
        raise EventParseError(f"duplicate key {duplicate!r}")
    return obj


def parse_event(data: str | bytes) -> dict[str, Any]:
    """Strictly parse one serialised event: a JSON object, no duplicate keys, no NaN/Infinity.

    Plain `json.loads` keeps the last of duplicate keys while other parsers keep the first;
    a signature over one reading would then vouch for a document others read differently.
    Raises `EventParseError` (a `ValueError`).
    """
    try:
        event = json.loads(data, object_pairs_hook=_unique_keys, parse_constant=_reject_constant)
    except EventParseError:
        raise
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError
        raise EventParseError(str(exc) or type(exc).__name__) from None
    if not isinstance(event, dict):
        raise EventParseError(f"expected a JSON object, got {type(event).__name__}")
    return event
