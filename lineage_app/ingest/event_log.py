"""The event log's hot statements: the lookup of content hashes already stored, new events in multi-row
`INSERT … RETURNING` statements, and marking applied events in `UPDATE … RETURNING` ones (and settled ones as
folded). Their names are quoted once per database vendor.

Accepting is the ingest API's whole job, and the ORM's per-value preparation and JSON
re-encoding of every payload cost more than the database does. Here each value is adapted
once by the backend's own operations, and the payload is stored as the canonical JSON text
the content hash was taken over (the same JSON value the event decoded to). The SQL is
plain `INSERT … VALUES … RETURNING`, which SQLite (3.35+) and PostgreSQL both run. Only a
statement holding an event with facet warnings names the warnings column: a clean event costs
nothing more.

Each new row is a dict of its values by column (`_new_row`), and the INSERT's column list is
the rows' own keys: no list of values has to line up by position with a separate list of names
(tests/ingest/test_event_log.py reads every column of inserted rows back through the ORM).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Collection, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import connection, models
from django.utils import timezone

from lineage_app.ingest.models import LineageEvent

if TYPE_CHECKING:
    from lineage_app.accounts.models import ApiToken
    from lineage_app.ingest.validation import CheckedEvent


def log_insert(
    rows: Sequence[tuple[CheckedEvent, bytes, ApiToken | None]], *, received_at: datetime | None = None
) -> dict[str, int]:
    """Insert `rows` (none of them in the log yet) in the current transaction, received at `received_at`
    (now); their ids by content hash."""
    if not rows:
        return {}
    received_at = received_at or timezone.now()
    new_rows = [_new_row(*row, received_at) for row in rows]
    if any(checked.warnings for checked, _, _ in rows):
        for (checked, _, _), new_row in zip(rows, new_rows, strict=True):
            new_row["facet_warnings"] = _warnings(checked)
    names = tuple(new_rows[0])  # every row has the same columns, in the same order
    fields = [LineageEvent._meta.get_field(name) for name in names]
    chunk = max(1, connection.ops.bulk_batch_size(fields, rows))
    ids: dict[str, int] = {}
    with connection.cursor() as cursor:
        for start in range(0, len(new_rows), chunk):
            part = new_rows[start : start + chunk]
            cursor.execute(
                _insert_statement(connection.vendor, len(part), names),
                [value for new_row in part for value in new_row.values()],
            )
            ids.update((content_hash, pk) for pk, content_hash in cursor.fetchall())
    return ids


# Ids per `UPDATE … WHERE id IN (…)` (and hashes per lookup): well under SQLite's limit on a statement's variables.
MARK_CHUNK = 500


def log_known(content_hashes: Collection[str]) -> dict[str, int]:
    """The ids of those of `content_hashes` already in the log, by content hash (one lookup an accept makes)."""
    hashes = list(content_hashes)
    known: dict[str, int] = {}
    with connection.cursor() as cursor:
        for start in range(0, len(hashes), MARK_CHUNK):
            part = hashes[start : start + MARK_CHUNK]
            cursor.execute(
                f"SELECT {_column('content_hash')}, {_column('id')} FROM {_table()} "
                f"WHERE {_column('content_hash')} IN ({', '.join(['%s'] * len(part))})",
                part,
            )
            known.update(cursor.fetchall())
    return known


def log_mark_applied(event_ids: Sequence[int], applied_at: datetime) -> set[int]:
    """Mark the events of `event_ids` still waiting (pending or failed) as applied at `applied_at`; the ids
    this call marked. Two workers that applied the same events concurrently each mark only what the
    other had not, so every event is counted applied once.

    A run's event is marked `fold_pending` in the same statement: until its run is settled
    (`log_mark_folded`), the run's node may lack it, and a worker that dies before settling leaves
    that on record for the next one."""
    table = _table()
    waiting = [status.value for status in LineageEvent.APPLYABLE]
    marked: set[int] = set()
    with connection.cursor() as cursor:
        for start in range(0, len(event_ids), MARK_CHUNK):
            part = list(event_ids[start : start + MARK_CHUNK])
            cursor.execute(
                f"UPDATE {table} SET {_column('status')} = %s, {_column('status_reason')} = '', "
                f"{_column('applied_at')} = %s, {_column('fold_pending')} = ({_column('run_id')} <> '') "
                f"WHERE {_column('id')} IN ({', '.join(['%s'] * len(part))}) "
                f"AND {_column('status')} IN ({', '.join(['%s'] * len(waiting))}) RETURNING {_column('id')}",
                [
                    LineageEvent.Status.APPLIED.value,
                    connection.ops.adapt_datetimefield_value(applied_at),
                    *part,
                    *waiting,
                ],
            )
            marked.update(pk for (pk,) in cursor.fetchall())
    return marked


def log_mark_folded(content_hashes: Iterable[str]) -> int:
    """Clear `fold_pending` on these events: their runs' nodes were written from folds holding them."""
    hashes = list(content_hashes)
    cleared = 0
    for start in range(0, len(hashes), MARK_CHUNK):
        part = hashes[start : start + MARK_CHUNK]
        cleared += LineageEvent.objects.filter(content_hash__in=part, fold_pending=True).update(fold_pending=False)
    return cleared


def _warnings(checked: CheckedEvent) -> str | None:
    stored = checked.warnings_stored()
    return json.dumps(stored) if stored is not None else None


def _new_row(checked: CheckedEvent, raw: bytes, token: ApiToken | None, received_at: datetime) -> dict[str, Any]:
    """The values of a new row by column, in the order the INSERT names them (the id is the database's)."""
    adapt_time = connection.ops.adapt_datetimefield_value
    return {
        "content_hash": checked.content_hash,
        "raw": raw,
        "payload": checked.canonical.decode("utf-8"),
        "kind": checked.kind,
        "event_type": checked.event_type,
        "event_time": adapt_time(checked.event_time),
        "run_id": checked.run_id,
        "job_namespace": checked.job_namespace,
        "job_name": checked.job_name,
        "received_at": adapt_time(received_at),
        "token": token.pk if token is not None else None,
        "status": LineageEvent.Status.PENDING.value,
        "status_reason": "",
        "verification": "",
        "attempts": 0,
        "applied_at": None,
    }


def _column(name: str) -> str:
    return _quoted_column(connection.vendor, name)


# Quoted names and the INSERT, once per database vendor (and shape): every accept runs these statements.
@functools.cache
def _quoted_column(vendor: str, name: str) -> str:
    field = LineageEvent._meta.get_field(name)
    assert isinstance(field, models.Field) and field.column  # a column of the table, not a relation's other side
    return connection.ops.quote_name(field.column)


def _table() -> str:
    return _quoted_table(connection.vendor)


@functools.cache
def _quoted_table(vendor: str) -> str:
    return connection.ops.quote_name(LineageEvent._meta.db_table)


@functools.lru_cache(maxsize=256)
def _insert_statement(vendor: str, rows: int, names: tuple[str, ...]) -> str:
    row = "(" + ", ".join(["%s"] * len(names)) + ")"
    return (
        f"INSERT INTO {_table()} ({', '.join(map(_column, names))}) "
        f"VALUES {', '.join([row] * rows)} RETURNING {_column('id')}, {_column('content_hash')}"
    )
