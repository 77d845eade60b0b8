"""Transparency-log reads: leaves, inclusion and consistency proofs against signed checkpoints, the log's gauges.

A proof reads the leaf rows that store its subtree roots (`ledger.tree`): one query of O(log n) rows
by primary key, whatever the log's size.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Max
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from lineage_app.instants import utc_text
from lineage_app.ledger.models import LogAudit, LogCheckpoint, LogHead, LogKey, LogLeaf
from lineage_app.ledger.tree import (
    NodeRef,
    consistency_ranges,
    inclusion_ranges,
    node_row,
    ranges_hashes,
    ranges_refs,
)
from lineage_app.observability.exposition import LogGauges
from lineage_protocol import HASH_SIZE, fold_right, subtrees

_CONTENT_HASH_RE = re.compile(r"[0-9a-f]{64}")


class LogQueryError(Exception):
    """A proof the log cannot give: `status` and `code` for the answer, `path` the parameter at fault."""

    def __init__(self, status: int, code: str, message: str, *, path: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.path, self.retry_after = status, code, message, path, retry_after


class LogTampered(RuntimeError):
    """The log's store no longer holds what it wrote: a leaf row is gone or its stored roots are cut short."""


def b64(value: bytes) -> str:
    return base64.b64encode(value).decode("ascii")


def leaf_indexes(*, content_hashes: Iterable[str]) -> dict[str, int]:
    """The leaf of each content hash (the newest, should an event be accepted again after retention pruned it)."""
    rows = LogLeaf.objects.filter(content_hash__in=list(content_hashes)).values("content_hash")
    return dict(rows.annotate(newest=Max("leaf_index")).values_list("content_hash", "newest"))


def log_size() -> int:
    return LogHead.objects.filter(pk=1).values_list("size", flat=True).first() or 0


def _select(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    """Rows of a hand-written read: a proof is a few of these, and the ORM's compiling of each query
    cost more than the database's answer."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


def log_nodes(refs: Iterable[NodeRef]) -> dict[NodeRef, bytes]:
    """The stored roots of subtrees `refs` = (level, index), read in one query."""
    wanted = set(refs)
    indexes = sorted({node_row(ref) for ref in wanted})
    rows = (
        {
            index: (bytes(leaf), bytes(completes))
            for index, leaf, completes in _select(
                f"SELECT {_q('leaf_index')}, {_q('hash')}, {_q('completes')} FROM {_q(LogLeaf._meta.db_table)} "
                f"WHERE {_q('leaf_index')} IN ({', '.join(['%s'] * len(indexes))})",
                list(indexes),
            )
        }
        if indexes
        else {}
    )
    found = {}
    for level, index in wanted:
        row = rows.get(node_row((level, index)))
        if row is None:
            raise LogTampered(f"leaf {node_row((level, index))} is missing from the log's store")
        leaf, completes = row
        found[(level, index)] = leaf if level == 0 else completes[(level - 1) * HASH_SIZE : level * HASH_SIZE]
    return found


def log_root(size: int) -> bytes:
    """The root of the log's first `size` leaves, from O(log n) stored subtree roots."""
    refs = subtrees(0, size)
    nodes = log_nodes(refs)
    return fold_right([nodes[ref] for ref in refs])


@dataclass(frozen=True, slots=True)
class SignedCheckpoint:
    """A stored checkpoint as proofs and the checkpoint task read it."""

    size: int
    root_hash: bytes
    note: str
    key_id: str
    signed_at: datetime


def checkpoint_at(size: int | None) -> SignedCheckpoint | None:
    """The checkpoint of tree size `size`, or the latest; read by hand, as every proof reads one."""
    names = ", ".join(f"c.{_q(n)}" for n in ("size", "root_hash", "note", "signed_at"))
    where = f"WHERE c.{_q('size')} = %s " if size is not None else ""
    rows = _select(
        f"SELECT {names}, k.{_q('key_id')} FROM {_q(LogCheckpoint._meta.db_table)} c "
        f"JOIN {_q(LogKey._meta.db_table)} k ON k.{_q('id')} = c.{_q('key_id')} "
        f"{where}ORDER BY c.{_q('size')} DESC LIMIT 1",
        [size] if size is not None else [],
    )
    if not rows:
        return None
    tree_size, root, note, signed_at, key_id = rows[0]
    return SignedCheckpoint(tree_size, bytes(root), note, key_id, _instant(signed_at))


def checkpoint_latest() -> SignedCheckpoint | None:
    return checkpoint_at(None)


def checkpoint_due(latest: SignedCheckpoint | None) -> datetime:
    """When beat signs the next checkpoint at the latest (`LEDGER_CHECKPOINT_SECONDS` after the last)."""
    interval = timedelta(seconds=settings.LEDGER_CHECKPOINT_SECONDS)
    return max(timezone.now(), (latest.signed_at + interval) if latest else timezone.now() + interval)


def checkpoint_view(checkpoint: SignedCheckpoint) -> dict[str, Any]:
    """A checkpoint as the API answers it: the signed note and what it says."""
    return {
        "treeSize": checkpoint.size,
        "rootHash": b64(checkpoint.root_hash),
        "note": checkpoint.note,
        "keyId": checkpoint.key_id,
        "signedAt": utc_text(checkpoint.signed_at),
    }


def log_keys() -> list[dict[str, Any]]:
    """The keys checkpoints may be signed with (every key that signed one and was not revoked)."""
    return [
        {"keyId": key.key_id, "verifierKey": key.verifier_key, "publicKey": key.public_key}
        for key in LogKey.objects.filter(revoked_at__isnull=True)
    ]


def checkpoint_answer() -> dict[str, Any]:
    """`GET /ledger/checkpoint`: the latest checkpoint, the log's valid keys and its size now."""
    latest = checkpoint_latest()
    if latest is None:
        raise LogQueryError(
            404,
            "not_found",
            f"the log has no checkpoint yet; the first is due by {utc_text(checkpoint_due(None))}",
            path="$",
            retry_after=settings.LEDGER_CHECKPOINT_SECONDS,
        )
    return {**checkpoint_view(latest), "keys": log_keys(), "logSize": log_size()}


@dataclass(frozen=True, slots=True)
class _Leaf:
    leaf_index: int
    content_hash: str
    accepted_at: datetime
    hash: bytes
    pruned: bool


def _leaf(event: str) -> _Leaf:
    value: int | str
    if event.isdigit() and len(event) <= 18:
        column, value = "event_id", int(event)
    elif _CONTENT_HASH_RE.fullmatch(event):
        column, value = "content_hash", event
    else:
        raise LogQueryError(400, "invalid", "event is an event id or a 64-hex-digit content hash", path="event")
    names = ("leaf_index", "content_hash", "accepted_at", "hash", "pruned_by_id")
    rows = _select(
        f"SELECT {', '.join(map(_q, names))} FROM {_q(LogLeaf._meta.db_table)} WHERE {_q(column)} = %s "
        f"ORDER BY {_q('leaf_index')} DESC LIMIT 1",
        [value],
    )
    if not rows:
        raise LogQueryError(404, "not_found", f"no event {event} in the log", path="event")
    index, content_hash, accepted_at, leaf, pruned = rows[0]
    return _Leaf(index, content_hash, _instant(accepted_at), bytes(leaf), pruned is not None)


def _instant(value: datetime | str) -> datetime:
    """A datetime column read by hand: PostgreSQL gives an aware datetime, SQLite a naive one (or its text) in UTC."""
    parsed = value if isinstance(value, datetime) else parse_datetime(value)
    assert parsed is not None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _checkpoint_for(size: int | None) -> SignedCheckpoint:
    found = checkpoint_at(size)
    if found is None:
        message = "the log has no checkpoint yet" if size is None else f"no checkpoint has tree size {size}"
        raise LogQueryError(404, "not_found", message, path="treeSize")
    return found


def proof_inclusion(*, event: str, tree_size: int | None) -> dict[str, Any]:
    """The audit path of `event` (an event id or content hash) against the checkpoint of `tree_size` (the latest)."""
    leaf = _leaf(event)
    checkpoint = _checkpoint_for(tree_size)
    if leaf.leaf_index >= checkpoint.size:
        if tree_size is not None:
            raise LogQueryError(
                404,
                "not_found",
                f"event {event} is leaf {leaf.leaf_index}, not in the checkpoint of tree size {checkpoint.size}",
                path="treeSize",
            )
        due = checkpoint_due(checkpoint)
        raise LogQueryError(
            409,
            "not_checkpointed",
            f"event {event} is leaf {leaf.leaf_index}, not yet in a checkpoint (the latest covers "
            f"{checkpoint.size} leaves); the next checkpoint is due by {utc_text(due)}",
            path="event",
            retry_after=max(1, int((due - timezone.now()).total_seconds())),
        )
    ranges = inclusion_ranges(leaf.leaf_index, checkpoint.size)
    path = ranges_hashes(ranges, log_nodes(ranges_refs(ranges)))
    return {
        "leafIndex": leaf.leaf_index,
        "treeSize": checkpoint.size,
        "contentHash": leaf.content_hash,
        "acceptedAt": utc_text(leaf.accepted_at),
        "leafHash": b64(leaf.hash),
        "pruned": leaf.pruned,
        "auditPath": [b64(h) for h in path],
        "checkpoint": checkpoint_view(checkpoint),
    }


def proof_consistency(*, first: int, second: int | None) -> dict[str, Any]:
    """The proof that the log at size `second` (the latest checkpoint's) extends the log at size `first`."""
    latest = checkpoint_latest()
    signed = latest.size if latest else 0
    if second is None:
        second = signed
    if second > signed:
        raise LogQueryError(
            404, "not_found", f"no checkpoint covers tree size {second}: the latest is of size {signed}", path="to"
        )
    if first > second:
        raise LogQueryError(400, "invalid", f"from ({first}) is larger than to ({second})", path="from")
    ranges = consistency_ranges(first, second) if 0 < first < second else []
    refs = ranges_refs(ranges) | set(subtrees(0, first)) | set(subtrees(0, second))
    nodes = log_nodes(refs)
    at_second = checkpoint_at(second)
    return {
        "from": first,
        "to": second,
        "fromRoot": b64(fold_right([nodes[ref] for ref in subtrees(0, first)])),
        "toRoot": b64(fold_right([nodes[ref] for ref in subtrees(0, second)])),
        "proof": [b64(h) for h in ranges_hashes(ranges, nodes)],
        "checkpoint": checkpoint_view(at_second) if at_second else None,
    }


def log_gauges() -> LogGauges:
    """The log's size, its latest checkpoint's size and time, and the newest check's findings."""
    latest = checkpoint_latest()
    audit = LogAudit.objects.order_by("-checked_at").first()
    return LogGauges(
        size=log_size(),
        checkpoint_size=latest.size if latest else 0,
        checkpoint_at=latest.signed_at if latest else None,
        mismatches=(audit.missing + audit.mismatched) if audit else 0,
    )


def leaves_between(start: int, end: int) -> list[tuple[int, str, int, datetime, bytes, bool]]:
    """Leaves [start, end): index, content hash, event id, acceptance time, leaf hash, pruned."""
    rows = LogLeaf.objects.filter(leaf_index__gte=start, leaf_index__lt=end).order_by("leaf_index")
    return [
        (index, content_hash, event_id, accepted_at, bytes(leaf), pruned is not None)
        for index, content_hash, event_id, accepted_at, leaf, pruned in rows.values_list(
            "leaf_index", "content_hash", "event_id", "accepted_at", "hash", "pruned_by"
        )
    ]


def leaves_pruned(indexes: Iterable[int]) -> set[int]:
    """Which of these leaves retention has pruned."""
    return set(
        LogLeaf.objects.filter(leaf_index__in=list(indexes), pruned_by__isnull=False).values_list(
            "leaf_index", flat=True
        )
    )
