"""JSON-Lines file transport with size-based rotation (also the HTTP spill target)."""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path

from spark_agent.transports import Deadline, Event, Outcome

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
