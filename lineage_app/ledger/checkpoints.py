"""Transparency-log writes besides appends: signed checkpoints, signed prune records, the record of a check.

Both kinds of record are C2SP signed notes under the server's key (`ledger.log_keys`), named by the
log's origin. Before signing a checkpoint the log proves to itself that the new tree extends the last
signed one (the stored roots at the old size must still give its root): a store that lost or changed
a leaf raises `LogTampered` instead of signing over it.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from lineage_app.instants import utc_text
from lineage_app.ledger.log_keys import log_key_record, log_signing_key
from lineage_app.ledger.models import LogAudit, LogCheckpoint, LogHead, LogKey, LogLeaf, LogPrune
from lineage_app.ledger.proofs import LogTampered, b64, checkpoint_latest, log_root, log_size
from lineage_app.ledger.tree import Frontier
from lineage_protocol import Checkpoint, Note, note_sign

PRUNE_RECORD = "tributary prune record v1"
logger = logging.getLogger(__name__)


def log_origin() -> str:
    """The log's origin: fixed at the first checkpoint (`LEDGER_ORIGIN`, or a random one), never changed after."""
    head, _ = LogHead.objects.get_or_create(pk=1)
    if not head.origin:
        head.origin = settings.LEDGER_ORIGIN or f"tributary.invalid/{secrets.token_hex(4)}"
        LogHead.objects.filter(pk=1, origin="").update(origin=head.origin)
        head.refresh_from_db(fields=["origin"])
    elif settings.LEDGER_ORIGIN and head.origin != settings.LEDGER_ORIGIN:
        raise ImproperlyConfigured(
            f"LEDGER_ORIGIN is {settings.LEDGER_ORIGIN!r} but the log was named {head.origin!r} at its first "
            "checkpoint: a log cannot change its name"
        )
    return head.origin


def log_note_sign(text: str) -> tuple[str, LogKey]:
    """`text` as a note signed with the log's key under its origin (the note, serialised), and that key's row."""
    origin = log_origin()
    private_key = log_signing_key()
    key = log_key_record(private_key=private_key, origin=origin)
    return Note(text=text, signatures=(note_sign(text, name=origin, private_key=private_key),)).serialise(), key


def checkpoint_sign() -> LogCheckpoint | None:
    """Sign a checkpoint of the log as it is now, if it grew since the latest; `LogTampered` if a leaf row is
    gone or the stored tree no longer extends the latest checkpoint (a count and O(log n) rows)."""
    head = LogHead.objects.filter(pk=1).first()
    if head is None:
        return None
    frontier = Frontier.unpack(head.size, bytes(head.frontier))
    stored = LogLeaf.objects.filter(leaf_index__lt=frontier.size).count()
    if stored != frontier.size:
        raise LogTampered(
            f"{frontier.size - stored} leaf row(s) are missing from the log's store (it holds {stored} of "
            f"{frontier.size})"
        )
    latest = checkpoint_latest()
    if latest is not None:
        if latest.size >= frontier.size:
            return None
        if latest.size and log_root(latest.size) != bytes(latest.root_hash):
            raise LogTampered(
                f"the stored leaves no longer give the root of the checkpoint at tree size {latest.size}: "
                "the log's store was changed"
            )
    root = frontier.root()
    note, key = log_note_sign(Checkpoint(origin=log_origin(), size=frontier.size, root_hash=root).text())
    checkpoint, _ = LogCheckpoint.objects.get_or_create(
        size=frontier.size, defaults={"root_hash": root, "note": note, "key": key}
    )
    return checkpoint


def leaves_prune(*, event_ids: Sequence[int]) -> LogPrune | None:
    """Record, in the caller's transaction, that retention deletes these events: their leaves stay (old proofs
    still verify), marked by a signed prune record naming how many and a digest of which."""
    indexes = sorted(
        LogLeaf.objects.filter(event_id__in=list(event_ids), pruned_by__isnull=True).values_list(
            "leaf_index", flat=True
        )
    )
    if not indexes:
        return None
    pruned_at, size = timezone.now(), log_size()
    digest = hashlib.sha256(b"".join(index.to_bytes(8, "big") for index in indexes)).digest()
    lines = [PRUNE_RECORD, log_origin(), str(size), utc_text(pruned_at), str(len(indexes)), b64(digest)]
    note, key = log_note_sign("".join(f"{line}\n" for line in lines))
    record = LogPrune.objects.create(pruned_at=pruned_at, tree_size=size, leaf_count=len(indexes), note=note, key=key)
    LogLeaf.objects.filter(leaf_index__in=indexes).update(pruned_by=record)
    logger.info("prune record %d: %d leaves keep their hashes, their events deleted (signed)", record.pk, len(indexes))
    return record


def log_audit_record(*, tree_size: int, missing: int, mismatched: int, detail: list[dict[str, Any]]) -> LogAudit:
    """Store one check of the leaves against the event log (the newest is what `/metrics` reports)."""
    return LogAudit.objects.create(tree_size=tree_size, missing=missing, mismatched=mismatched, detail=detail)
