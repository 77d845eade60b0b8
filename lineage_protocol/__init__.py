"""What producers and the server must agree on, byte for byte: Tributary's wire protocol.

- canonical JSON (RFC 8785) and the content hash the server deduplicates on;
- the `tributary_signature` run facet: Ed25519 over the canonical bytes of the event without it;
- per-producer chains (`stream`, `seq`, `prev` in a version 2 signature facet) and signed heartbeats;
- the signature status vocabulary, and the JSON Schemas of Tributary's own facets;
- strict parsing of one serialised event;
- the names both sides spell alike: facet keys, the ingest paths, the OpenLineage event types;
- the batch receipt of OpenLineage's `POST /lineage/batch`: written by the server and the relay, read by both;
- the transparency log's Merkle hashing and proof checks (RFC 9162), and its signed checkpoints (C2SP signed notes).
- witnessing the log: C2SP cosignatures, the consistency check before one, a witness's round over HTTP.
- the offline audit bundle's format and its verifier (`bundle`, `audit`), and the plain HTML and PDF listing
  pieces (`listing`) that the audit summary and the server's impact report share.

This is a stable API: the Spark agent, the relay and the server import it from here, and only from
here; it imports none of them (`lint-imports` enforces both). Its contract tests (`tests/protocol`)
pin the bytes, hashes and signatures of fixed events, so a change made for one side cannot silently
change what the other stores or accepts. It needs `cryptography` and `rfc8785`, never pyspark or
Django. Beside the API, two commands on it: `python -m lineage_protocol.keygen` (a key pair) and
`python -m lineage_protocol.verify` (check recorded events offline).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from lineage_protocol.receipt import RECEIPT_STATUSES, FailedEvent, batch_receipt, receipt_failures

if TYPE_CHECKING:  # at run time these are imported when first used (`__getattr__` below)
    from lineage_protocol.audit import (
        AuditReport,
        bundle_verify,
    )
    from lineage_protocol.bundle import (
        BundleCheckpoint,
        BundleConsistency,
        BundledKey,
        BundleError,
        bundle_event,
        bundle_header,
        bundle_line,
        bundle_seal_text,
    )
    from lineage_protocol.canonical import (
        canonical_json,
        canonical_json_of_any,
        content_hash,
        outside_strings,
    )
    from lineage_protocol.chain import (
        HEARTBEAT_FACET,
        HEARTBEAT_JOB,
        STREAM_STATES,
        Head,
        Heartbeat,
        StreamChain,
        heartbeat_event,
        is_heartbeat,
        read_heartbeat,
        signed_hash,
        stream_state,
    )
    from lineage_protocol.facet_schemas import (
        facet_schema,
    )
    from lineage_protocol.listing import (
        PdfListing,
        html_cell,
        html_head,
    )
    from lineage_protocol.merkle import (
        EMPTY_ROOT,
        HASH_SIZE,
        ProofError,
        accepted_text,
        consistency_roots,
        event_leaf_hash,
        event_leaf_hashes,
        fold_right,
        hash_from_text,
        hashes_from_text,
        inclusion_root,
        leaf_data,
        leaf_hash,
        node_hash,
        root_of,
        split_point,
        subtrees,
        verify_consistency,
        verify_inclusion,
    )
    from lineage_protocol.note import (
        Checkpoint,
        Note,
        NoteError,
        NoteSignature,
        NoteVerifier,
        checkpoint_open,
        note_key_hash,
        note_sign,
        note_verify,
        parse_checkpoint,
        parse_note,
        parse_vkey,
    )
    from lineage_protocol.signature import (
        ALGORITHM,
        CHAINED_VERSION,
        DEFAULT_PRODUCER,
        SCHEMA_URL,
        SIGNATURE_FACET,
        CanonicalizationError,
        ChainLink,
        EventParseError,
        Signature,
        SignatureFormatError,
        SignatureProblem,
        Verification,
        VerificationStatus,
        canonical_bytes,
        check_event,
        generate_private_key,
        key_id,
        load_private_key,
        load_public_key,
        parse_event,
        private_key_pem,
        public_key_pem,
        read_signature,
        sign_event,
        stream_name,
        verify_event,
    )
    from lineage_protocol.witness import (
        Refusal,
        RefusalKind,
        WitnessRefusal,
        WitnessState,
        WitnessStateError,
        cosign,
        cosignature_verify,
        cosigner_key_hash,
        cosigner_vkey,
        parse_cosigner_vkey,
        refusal_note,
        refusal_read,
        witness_check,
        witness_state_load,
        witness_state_save,
    )
    from lineage_protocol.witness_client import (
        LogClient,
        LogUnreachable,
        Witness,
        WitnessRound,
    )
from lineage_protocol.wire import BATCH_PATH, COUNTERS_FACET, EVENT_PATH, LOG_TAMPERED, STREAMING_FACET, EventType

__all__ = [
    "ALGORITHM",
    "BATCH_PATH",
    "CHAINED_VERSION",
    "COUNTERS_FACET",
    "DEFAULT_PRODUCER",
    "EMPTY_ROOT",
    "EVENT_PATH",
    "HASH_SIZE",
    "HEARTBEAT_FACET",
    "HEARTBEAT_JOB",
    "LOG_TAMPERED",
    "RECEIPT_STATUSES",
    "SCHEMA_URL",
    "SIGNATURE_FACET",
    "STREAMING_FACET",
    "STREAM_STATES",
    "AuditReport",
    "BundleCheckpoint",
    "BundleConsistency",
    "BundleError",
    "BundledKey",
    "CanonicalizationError",
    "ChainLink",
    "Checkpoint",
    "EventParseError",
    "EventType",
    "FailedEvent",
    "Head",
    "Heartbeat",
    "LogClient",
    "LogUnreachable",
    "Note",
    "NoteError",
    "NoteSignature",
    "NoteVerifier",
    "PdfListing",
    "ProofError",
    "Refusal",
    "RefusalKind",
    "Signature",
    "SignatureFormatError",
    "SignatureProblem",
    "StreamChain",
    "Verification",
    "VerificationStatus",
    "Witness",
    "WitnessRefusal",
    "WitnessRound",
    "WitnessState",
    "WitnessStateError",
    "accepted_text",
    "batch_receipt",
    "bundle_event",
    "bundle_header",
    "bundle_line",
    "bundle_seal_text",
    "bundle_verify",
    "canonical_bytes",
    "canonical_json",
    "canonical_json_of_any",
    "check_event",
    "checkpoint_open",
    "consistency_roots",
    "content_hash",
    "cosign",
    "cosignature_verify",
    "cosigner_key_hash",
    "cosigner_vkey",
    "event_leaf_hash",
    "event_leaf_hashes",
    "facet_schema",
    "fold_right",
    "generate_private_key",
    "hash_from_text",
    "hashes_from_text",
    "heartbeat_event",
    "html_cell",
    "html_head",
    "inclusion_root",
    "is_heartbeat",
    "key_id",
    "leaf_data",
    "leaf_hash",
    "load_private_key",
    "load_public_key",
    "node_hash",
    "note_key_hash",
    "note_sign",
    "note_verify",
    "outside_strings",
    "parse_checkpoint",
    "parse_cosigner_vkey",
    "parse_event",
    "parse_note",
    "parse_vkey",
    "private_key_pem",
    "public_key_pem",
    "read_heartbeat",
    "read_signature",
    "receipt_failures",
    "refusal_note",
    "refusal_read",
    "root_of",
    "sign_event",
    "signed_hash",
    "split_point",
    "stream_name",
    "stream_state",
    "subtrees",
    "verify_consistency",
    "verify_event",
    "verify_inclusion",
    "witness_check",
    "witness_state_load",
    "witness_state_save",
]

# The modules that need `cryptography`, `rfc8785` or the JSON Schemas, and the names they give: imported when
# one of them is first used, so that a producer that does not sign (the Spark agent without a key) never
# loads them, tens of milliseconds a job would otherwise spend in `install()`.
_LAZY: dict[str, tuple[str, ...]] = {
    "audit": ("AuditReport", "bundle_verify"),
    "bundle": (
        "BundleCheckpoint",
        "BundleConsistency",
        "BundleError",
        "BundledKey",
        "bundle_event",
        "bundle_header",
        "bundle_line",
        "bundle_seal_text",
    ),
    "canonical": (
        "canonical_json",
        "canonical_json_of_any",
        "content_hash",
        "outside_strings",
    ),
    "chain": (
        "HEARTBEAT_FACET",
        "HEARTBEAT_JOB",
        "STREAM_STATES",
        "Head",
        "Heartbeat",
        "StreamChain",
        "heartbeat_event",
        "is_heartbeat",
        "read_heartbeat",
        "signed_hash",
        "stream_state",
    ),
    "facet_schemas": ("facet_schema",),
    "listing": ("PdfListing", "html_cell", "html_head"),
    "merkle": (
        "EMPTY_ROOT",
        "HASH_SIZE",
        "ProofError",
        "accepted_text",
        "consistency_roots",
        "event_leaf_hash",
        "event_leaf_hashes",
        "fold_right",
        "hash_from_text",
        "hashes_from_text",
        "inclusion_root",
        "leaf_data",
        "leaf_hash",
        "node_hash",
        "root_of",
        "split_point",
        "subtrees",
        "verify_consistency",
        "verify_inclusion",
    ),
    "note": (
        "Checkpoint",
        "Note",
        "NoteError",
        "NoteSignature",
        "NoteVerifier",
        "checkpoint_open",
        "note_key_hash",
        "note_sign",
        "note_verify",
        "parse_checkpoint",
        "parse_note",
        "parse_vkey",
    ),
    "signature": (
        "ALGORITHM",
        "CHAINED_VERSION",
        "DEFAULT_PRODUCER",
        "SCHEMA_URL",
        "SIGNATURE_FACET",
        "CanonicalizationError",
        "ChainLink",
        "EventParseError",
        "Signature",
        "SignatureFormatError",
        "SignatureProblem",
        "Verification",
        "VerificationStatus",
        "canonical_bytes",
        "check_event",
        "generate_private_key",
        "key_id",
        "load_private_key",
        "load_public_key",
        "parse_event",
        "private_key_pem",
        "public_key_pem",
        "read_signature",
        "sign_event",
        "stream_name",
        "verify_event",
    ),
    "witness": (
        "Refusal",
        "RefusalKind",
        "WitnessRefusal",
        "WitnessState",
        "WitnessStateError",
        "cosign",
        "cosignature_verify",
        "cosigner_key_hash",
        "cosigner_vkey",
        "parse_cosigner_vkey",
        "refusal_note",
        "refusal_read",
        "witness_check",
        "witness_state_load",
        "witness_state_save",
    ),
    "witness_client": (
        "LogClient",
        "LogUnreachable",
        "Witness",
        "WitnessRound",
    ),
}
_HOME = {name: module for module, names in _LAZY.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'lineage_protocol' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"lineage_protocol.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
