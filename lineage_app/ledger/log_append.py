"""The transparency log's hot write: new events' leaves, appended in the transaction that stores the events.

Accept calls `log_append` last in its transaction, so the head row's lock (PostgreSQL; SQLite's
write lock is the whole transaction's anyway) is held only from here to the commit: concurrent
accepts in other processes insert their events meanwhile and queue only for this step. Leaf indexes
are therefore handed out in commit order, contiguous, and a receipt's index is final once the
transaction commits. An append reads one row (the head, with its frontier) and writes one row per
leaf, whatever the log's size.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

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
    with connection.cursor() as cursor:
        for start in range(0, len(rows), CHUNK):
            part = rows[start : start + CHUNK]
            cursor.execute(_insert(len(part)), [value for row in part for value in row])
        cursor.execute(
            f"UPDATE {_table(LogHead)} SET {_q('size')} = %s, {_q('frontier')} = %s WHERE {_q('id')} = %s",
            [grown.size, grown.pack(), HEAD],
        )
    return {content_hash: frontier.size + i for i, (content_hash, _) in enumerate(entries)}


def _head_locked() -> Frontier:
    """The head's frontier, its row locked until the transaction ends (made on the log's first append)."""
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    select = f"SELECT {_q('size')}, {_q('frontier')} FROM {_table(LogHead)} WHERE {_q('id')} = %s{lock}"
    with connection.cursor() as cursor:
        cursor.execute(select, [HEAD])
        found = cursor.fetchone()
        if found is None:
            cursor.execute(
                f"INSERT INTO {_table(LogHead)} ({_q('id')}, {_q('size')}, {_q('frontier')}, {_q('origin')}) "
                f"VALUES (%s, 0, %s, '') ON CONFLICT DO NOTHING",
                [HEAD, b""],
            )
            cursor.execute(select, [HEAD])
            found = cursor.fetchone()
    size, packed = found
    return Frontier.unpack(size, bytes(packed))


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


def _table(model: Any) -> str:
    return _q(model._meta.db_table)


def _insert(rows: int) -> str:
    names = ("leaf_index", "content_hash", "event_id", "accepted_at", "hash", "completes")
    row = "(" + ", ".join(["%s"] * len(names)) + ")"
    return f"INSERT INTO {_table(LogLeaf)} ({', '.join(map(_q, names))}) VALUES {', '.join([row] * rows)}"
