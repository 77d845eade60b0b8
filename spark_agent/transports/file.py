"""JSON-Lines file transport with size-based rotation; also the HTTP spill, replayed once the backend answers."""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path

from spark_agent.transports import Deadline, Event, Outcome, Sink
from spark_agent.transports.ledger import Delivery, FileEnd, Ledger, file_deliver, file_key

log = logging.getLogger("spark_agent")


class FileSink:
    """Appends one event per line; rotates `path` to `path.1` ... `path.<backups>` by size."""

    def __init__(self, path: str, max_bytes: int = 64 * 2**20, backups: int = 5) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes
        self.backups = backups
        self._lock = threading.Lock()

    def send(self, batch: list[Event], deadline: Deadline) -> Outcome:
        written = self.write(batch)
        return Outcome(delivered=written, failed=batch[written:])

    def write(self, events: list[Event]) -> int:
        """Append `events`; return how many were written before any I/O error."""
        written = 0
        with self._lock:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                size = self.path.stat().st_size if self.path.exists() else 0
                handle = self.path.open("ab")
                try:
                    for event in events:
                        line = json.dumps(event, separators=(",", ":")).encode() + b"\n"
                        if size and size + len(line) > self.max_bytes:
                            handle.close()
                            self._rotate()
                            handle = self.path.open("ab")
                            size = 0
                        handle.write(line)
                        size += len(line)
                        written += 1
                finally:
                    handle.close()
            except OSError as exc:
                log.warning("tributary: cannot write lineage file %s: %s", self.path, exc)
        return written

    def _rotate(self) -> None:
        if self.backups <= 0:
            self.path.unlink(missing_ok=True)
            return
        for i in range(self.backups - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{i}")
            if older.exists():
                os.replace(older, self.path.with_name(f"{self.path.name}.{i + 1}"))
        os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))

    @property
    def ledger_path(self) -> Path:
        """Where replay records what it delivered (hidden: `ship` on the same directory passes it by)."""
        return self.path.with_name(f".{self.path.name}.replayed")

    def files(self) -> list[Path]:
        """The rotated files and the current one that exist, oldest first."""
        names = [self.path.with_name(f"{self.path.name}.{i}") for i in range(self.backups, 0, -1)]
        return [path for path in [*names, self.path] if path.exists()]

    def holds_events(self) -> bool:
        try:
            return any(path.stat().st_size for path in self.files())
        except FileNotFoundError:  # rotated away meanwhile: there is something
            return True

    def replay(self, sink: Sink, *, batch_size: int, deadline: Deadline) -> Delivery:
        """Send what was spilled to `sink`, oldest first, until it fails. A delivered rotated file is
        deleted, a delivered current file emptied; what was delivered of a file is recorded after each
        batch, so an interrupted replay resumes there (a crash re-sends at most one batch)."""
        ledger = Ledger(self.ledger_path)
        delivery = Delivery()
        for path in self.files():
            end = file_deliver(
                path, ledger=ledger, sink=sink, batch_size=batch_size, deadline=deadline, delivery=delivery
            )
            if delivery.stopped:
                break
            if end is not None and end.finished:
                self._discard(path, end, ledger)
        with self._lock:
            present = {file_key(path.stat()) for path in self.files()}
        ledger.keep_only(present)
        return delivery

    def _discard(self, path: Path, end: FileEnd, ledger: Ledger) -> None:
        """Remove a file replay has delivered in full, unless a write or a rotation changed it meanwhile."""
        with self._lock:
            try:
                stat = path.stat()
            except FileNotFoundError:
                return
            if file_key(stat) != end.key or stat.st_size != end.offset:
                return
            if path == self.path:
                # Recorded first: a crash before the truncation re-sends the file (duplicates), never skips it.
                ledger.record(end.key, name=path.name, head=None, offset=0, line=0)
                os.truncate(path, 0)
            else:
                path.unlink()
