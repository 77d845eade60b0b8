"""The relay's durable buffer: accepted events in a SQLite (WAL) file until the server has answered for them
(or, in file mode, until they are synced to an output file)."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lineage_protocol import Head

log = logging.getLogger("lineage_relay")

# Why a producer's events were refused (answered 503) instead of being buffered.
DROP_REASONS = ("buffer_full", "disk_full", "storage_error")
# Counters kept in the database, each updated in the transaction that does what it counts, so they
# match the buffer exactly across crashes and restarts.
DURABLE_COUNTERS = ("received", "forwarded", "written", "rejected")
# How many chained events' sources are remembered to recognise a producer's retry (a lost answer is retried
# within minutes; at 1,000 events/s this is more than a minute of them).
CHAINED_KEPT = 100_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pending (
    id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: the forwarding order is the arrival order
    received_at REAL NOT NULL,
    body BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS rejected (
    id INTEGER PRIMARY KEY,  -- the event's `pending` id
    received_at REAL NOT NULL,
    rejected_at REAL NOT NULL,
    http_status INTEGER NOT NULL,  -- of the server's answer: 200 when it refused this event in a batch
    errors TEXT NOT NULL,
    body BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
-- The events the relay chained, by the content hash of the event as the producer sent it (the newest
-- `CHAINED_KEPT`): a producer's retry of one of them is answered with its id, not signed into the chain again.
CREATE TABLE IF NOT EXISTS chained (source TEXT PRIMARY KEY, id INTEGER NOT NULL);
-- The head of the relay's stream (docs/ledger.md), written with the events it signed: the next start's
-- stream names it, so a restart leaves no unexplained break in the chain.
CREATE TABLE IF NOT EXISTS chain_head (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    stream TEXT NOT NULL,
    seq INTEGER NOT NULL,
    hash TEXT
);
"""


class BufferRefused(Exception):
    """The buffer cannot take the events now; `reason` is one of `DROP_REASONS` (or `closed`)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass(frozen=True, slots=True)
class Pending:
    """One buffered event, as accepted (signed) and as it will be forwarded."""

    id: int
    received_at: float
    body: bytes


@dataclass(frozen=True, slots=True)
class Rejection:
    """The server's refusal of one event: the HTTP status it answered and its errors (JSON)."""

    event: Pending
    http_status: int
    errors: object


@dataclass(slots=True)
class _Request:
    """One producer request waiting for the group commit that answers it (ids, or why it was refused)."""

    bodies: list[bytes]
    head: Head | None = None
    sources: list[str | None] | None = None
    ids: list[int] | None = None
    refused: BufferRefused | None = None

    @property
    def size(self) -> int:
        return sum(len(body) for body in self.bodies)


@dataclass(frozen=True, slots=True)
class Backlog:
    events: int
    bytes: int
    oldest_received_at: float | None


class EventBuffer:
    """Pending events in arrival order, the rejected ones kept for inspection, and the durable counters.

    One connection, used under one lock by the request threads and the forwarder: SQLite has one
    writer at a time anyway, and sharing it means no thread ever waits on `SQLITE_BUSY`.
    """

    def __init__(self, *, path: Path, max_bytes: int, keep_rejected: int) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.keep_rejected = keep_rejected
        self.dropped: Counter[str] = Counter({reason: 0 for reason in DROP_REASONS})
        self._lock = threading.Lock()  # held while the connection is used
        self._queue_lock = threading.Lock()  # held while `_queue` is changed
        self._queue: list[_Request] = []
        path.parent.mkdir(parents=True, exist_ok=True)
        # Autocommit mode: every transaction below is an explicit BEGIN IMMEDIATE ... COMMIT.
        self.connection: sqlite3.Connection | None = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False
        )
        self.connection.execute("PRAGMA journal_mode=WAL")
        # "Accepted" is a promise that the event survives a crash of the relay *and* of the machine.
        # In WAL mode, synchronous=NORMAL syncs the WAL only at checkpoints, so a power cut could lose
        # the last acknowledged events; FULL syncs the WAL at every commit, before the producer hears 2xx.
        self.connection.execute("PRAGMA synchronous=FULL")
        # The WAL grows with the largest transaction (a 16 MiB batch) and keeps that size after each
        # checkpoint unless told otherwise; the disk the buffer may use is bounded, so is the WAL.
        self.connection.execute("PRAGMA journal_size_limit=67108864")
        self.connection.executescript(_SCHEMA)
        row = self.connection.execute("SELECT count(*), coalesce(sum(length(body)), 0) FROM pending").fetchone()
        self._events, self._bytes = int(row[0]), int(row[1])

    def add(
        self, *, bodies: list[bytes], head: Head | None = None, sources: list[str | None] | None = None
    ) -> list[int]:
        """Commit `bodies` (all or none) and return their ids; `BufferRefused` if they cannot be kept.

        `head`, when given, is the relay's chain head once `bodies` are signed, and `sources` what each body was
        before the relay signed it (`None` for one it did not): both are stored with them.

        Group commit: while one request thread commits, the others queue; the next to get the lock
        commits every queued request in one transaction, so concurrent producers share one fsync.
        """
        request = _Request(bodies, head, sources)
        with self._queue_lock:
            self._queue.append(request)
        with self._lock:
            if request.ids is None and request.refused is None:
                with self._queue_lock:
                    group, self._queue = self._queue, []
                self._commit(group)
        if request.refused is not None:
            raise request.refused
        assert request.ids is not None
        return request.ids

    def _commit(self, group: list[_Request]) -> None:
        """Store the requests of `group` that fit, in arrival order, in one transaction; refuse the rest."""
        if self.connection is None:
            for request in group:
                request.refused = BufferRefused("closed", "the relay is shutting down")
            return
        admitted: list[_Request] = []
        room = self.max_bytes - self._bytes
        for request in group:
            if request.size > room:
                request.refused = self._drop(
                    "buffer_full",
                    len(request.bodies),
                    f"the relay's buffer holds {self.max_bytes - room} bytes of pending events; "
                    f"{request.size} more would pass its limit of {self.max_bytes} bytes",
                )
            else:
                room -= request.size
                admitted.append(request)
        if not admitted:
            return
        connection, now = self.connection, time.time()
        try:
            connection.execute("BEGIN IMMEDIATE")
            for request in admitted:
                request.ids = [
                    connection.execute("INSERT INTO pending (received_at, body) VALUES (?, ?)", (now, body)).lastrowid
                    or 0
                    for body in request.bodies
                ]
            _count(connection, received=sum(len(request.bodies) for request in admitted))
            chained = [
                (source, pending)
                for request in admitted
                for source, pending in zip(request.sources or [], request.ids or [], strict=False)
                if source is not None
            ]
            if chained:
                connection.executemany("INSERT OR REPLACE INTO chained (source, id) VALUES (?, ?)", chained)
                connection.execute(
                    "DELETE FROM chained WHERE rowid <= (SELECT max(rowid) FROM chained) - ?", (CHAINED_KEPT,)
                )
            heads = [request.head for request in admitted if request.head is not None]
            if heads:
                head = max(heads, key=lambda h: h.seq)
                connection.execute(
                    "INSERT OR REPLACE INTO chain_head (id, stream, seq, hash) VALUES (1, ?, ?, ?)",
                    (head.stream, head.seq, head.hash),
                )
            connection.execute("COMMIT")
        except sqlite3.Error as exc:
            _rollback(connection)
            reason = "disk_full" if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL else "storage_error"
            for request in admitted:
                request.ids = None
                request.refused = self._drop(reason, len(request.bodies), f"cannot store: {exc}")
            return
        self._events += sum(len(request.bodies) for request in admitted)
        self._bytes += sum(request.size for request in admitted)

    def oldest(self, *, limit: int, max_bytes: int) -> list[Pending]:
        """The first pending events in arrival order: at most `limit`, and at most `max_bytes` (but at least one)."""
        with self._lock:
            connection = self._open_connection()
            rows = connection.execute(
                "SELECT id, received_at, body FROM pending ORDER BY id LIMIT ?", (limit,)
            ).fetchall()
        batch: list[Pending] = []
        size = 0
        for event_id, received_at, body in rows:
            size += len(body)
            if batch and size > max_bytes:
                break
            batch.append(Pending(int(event_id), float(received_at), bytes(body)))
        return batch

    def settle(
        self, *, forwarded: Sequence[Pending] = (), rejected: Sequence[Rejection] = (), written: Sequence[Pending] = ()
    ) -> None:
        """Remove events the server has answered for, in one transaction: stored ones, and refused ones
        (moved to `rejected`, of which the newest `keep_rejected` are kept); in file mode, the ones `written`
        to an output file."""
        done = [event.id for event in (*forwarded, *written)] + [r.event.id for r in rejected]
        with self._lock:
            connection = self._open_connection()
            try:
                connection.execute("BEGIN IMMEDIATE")
                connection.executemany("DELETE FROM pending WHERE id = ?", [(i,) for i in done])
                if rejected:
                    now = time.time()
                    connection.executemany(
                        "INSERT OR REPLACE INTO rejected (id, received_at, rejected_at, http_status, errors, body) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        [
                            (r.event.id, r.event.received_at, now, r.http_status, json.dumps(r.errors), r.event.body)
                            for r in rejected
                        ],
                    )
                    connection.execute(
                        "DELETE FROM rejected WHERE id NOT IN (SELECT id FROM rejected ORDER BY id DESC LIMIT ?)",
                        (self.keep_rejected,),
                    )
                _count(connection, forwarded=len(forwarded), written=len(written), rejected=len(rejected))
                connection.execute("COMMIT")
            except sqlite3.Error:
                _rollback(connection)
                raise
            self._events -= len(done)
            self._bytes -= sum(len(event.body) for event in (*forwarded, *written)) + sum(
                len(r.event.body) for r in rejected
            )

    def backlog(self) -> Backlog:
        with self._lock:
            connection = self._open_connection()
            row = connection.execute("SELECT received_at FROM pending ORDER BY id LIMIT 1").fetchone()
            return Backlog(self._events, self._bytes, float(row[0]) if row else None)

    def chained_id(self, source: str) -> int | None:
        """The id the relay gave the event it chained from `source`, if it remembers one."""
        with self._lock:
            row = self._open_connection().execute("SELECT id FROM chained WHERE source = ?", (source,)).fetchone()
        return int(row[0]) if row else None

    def chain_head(self) -> Head | None:
        """The head of the stream the relay signed last (`None` before its first signed event)."""
        with self._lock:
            row = self._open_connection().execute("SELECT stream, seq, hash FROM chain_head").fetchone()
        return Head(str(row[0]), int(row[1]), row[2]) if row else None

    def counters(self) -> dict[str, int]:
        """The durable counters (`DURABLE_COUNTERS`), zero when nothing has been counted yet."""
        with self._lock:
            connection = self._open_connection()
            stored = dict(connection.execute("SELECT name, value FROM counters").fetchall())
        return {name: int(stored.get(name, 0)) for name in DURABLE_COUNTERS}

    def close(self) -> None:
        """Close the database once the transaction in progress (if any) has ended; later calls are refused."""
        with self._lock:
            if self.connection is not None:
                self.connection.close()
                self.connection = None

    def _open_connection(self) -> sqlite3.Connection:
        if self.connection is None:
            raise BufferRefused("closed", "the relay is shutting down")
        return self.connection

    def _drop(self, reason: str, events: int, message: str) -> BufferRefused:
        self.dropped[reason] += events
        log.warning("relay: refused %d event(s) (%s): %s", events, reason, message)
        return BufferRefused(reason, message)


def _count(connection: sqlite3.Connection, **increments: int) -> None:
    connection.executemany(
        "INSERT INTO counters (name, value) VALUES (?, ?) "
        "ON CONFLICT (name) DO UPDATE SET value = value + excluded.value",
        [(name, n) for name, n in increments.items() if n],
    )


def _rollback(connection: sqlite3.Connection) -> None:
    # SQLite rolls some failed transactions back by itself (SQLITE_FULL among them).
    if connection.in_transaction:
        connection.execute("ROLLBACK")
