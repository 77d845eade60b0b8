"""The transparency log's hot write: new events' leaves, appended in the transaction that stores the events.

Accept calls `log_append` last in its transaction, so the head row's lock (PostgreSQL; SQLite's
write lock is the whole transaction's anyway) is held only from here to the commit: concurrent
accepts in other processes insert their events meanwhile and queue only for this step. Leaf indexes
are therefore handed out in commit order, contiguous, and a receipt's index is final once the
transaction commits. An append reads one row (the head, with its frontier) and writes one row per
leaf, whatever the log's size.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import connection

from lineage_app.ledger.models import LogHead, LogLeaf
from lineage_app.ledger.tree import Frontier, frontier_append
from lineage_protocol import event_leaf_hashes

HEAD = 1
# Leaf rows per INSERT: 6 values each, well under SQLite's limit on a statement's variables.
CHUNK = 500


def log_append(*, entries: Sequence[tuple[str, int]], accepted_at: datetime) -> dict[str, int]:
    """Append a leaf for each (content hash, event id) accepted at `accepted_at`, in order, in the current
    transaction; their leaf indexes by content hash."""
    if not entries:
        return {}
    frontier = _head_locked()
    leaves = event_leaf_hashes(content_hashes=[content_hash for content_hash, _ in entries], accepted_at=accepted_at)
    grown, completes = frontier_append(frontier, leaves)
    at = connection.ops.adapt_datetimefield_value(accepted_at)
    rows = [
        (frontier.size + i, content_hash, event_id, at, leaf, done)
        for i, ((content_hash, event_id), leaf, done) in enumerate(zip(entries, leaves, completes, strict=True))
    ]
    sql = _sql(connection.vendor)
    with connection.cursor() as cursor:
        for start in range(0, len(rows), CHUNK):
            part = rows[start : start + CHUNK]
            cursor.execute(
                sql.insert_leaves + ", ".join([sql.leaf_values] * len(part)), [v for row in part for v in row]
            )
        cursor.execute(sql.update_head, [grown.size, grown.pack(), HEAD])
    return {content_hash: frontier.size + i for i, (content_hash, _) in enumerate(entries)}


def _head_locked() -> Frontier:
    """The head's frontier, its row locked until the transaction ends (made on the log's first append)."""
    sql = _sql(connection.vendor)
    with connection.cursor() as cursor:
        cursor.execute(sql.select_head, [HEAD])
        found = cursor.fetchone()
        if found is None:
            cursor.execute(sql.create_head, [HEAD, b""])
            cursor.execute(sql.select_head, [HEAD])
            found = cursor.fetchone()
    size, packed = found
    return Frontier.unpack(size, bytes(packed))


@dataclass(frozen=True, slots=True)
class _Sql:
    """The append's statements, written once per database vendor: an append runs in every accept transaction."""

    select_head: str
    create_head: str
    update_head: str
    insert_leaves: str  # followed by one `leaf_values` per leaf, comma-separated
    leaf_values: str


@functools.cache
def _sql(vendor: str) -> _Sql:
    q = connection.ops.quote_name
    head, leaf = q(LogHead._meta.db_table), q(LogLeaf._meta.db_table)
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    names = ("leaf_index", "content_hash", "event_id", "accepted_at", "hash", "completes")
    return _Sql(
        select_head=f"SELECT {q('size')}, {q('frontier')} FROM {head} WHERE {q('id')} = %s{lock}",
        create_head=f"INSERT INTO {head} ({q('id')}, {q('size')}, {q('frontier')}, {q('origin')}) "
        f"VALUES (%s, 0, %s, '') ON CONFLICT DO NOTHING",
        update_head=f"UPDATE {head} SET {q('size')} = %s, {q('frontier')} = %s WHERE {q('id')} = %s",
        insert_leaves=f"INSERT INTO {leaf} ({', '.join(map(q, names))}) VALUES ",
        leaf_values="(" + ", ".join(["%s"] * len(names)) + ")",
    )
