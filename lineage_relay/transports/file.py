"""JSON-Lines file transport with rotation by size (and, if asked, by age); also the HTTP spill, replayed once
the backend answers."""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path

from lineage_relay.transports import Deadline, Event, Outcome, Sink
from lineage_relay.transports.ledger import Delivery, FileEnd, Ledger, file_deliver, file_key

log = logging.getLogger("lineage_relay.transports")


class FileSink:
    """Appends one event per line to `path` and closes it (rotates it) when the next line would take it past
    `max_bytes`, or when its first line is `max_age_s` old.

    With `backups` a number, closed files are `path.1` (newest) ... `path.<backups>` and the oldest is
    overwritten. With `backups=None` every closed file is kept under its own name, never renamed again nor
    deleted: `<stem>-<UTC time of closing><suffix>` beside `path` (`jobs.jsonl` -> `jobs-20261124T020906.
    123456Z.jsonl`); a leading dot of `path` is left out, so the open file can be hidden while every closed
    one is visible (`.relay.jsonl` -> `relay-….jsonl`): files that are carried away whole.

    `durable`: this process is the file's only writer and what `append` reports written must survive a
    machine crash: each append is synced (and the directory, when a file is created or closed), and a
    torn last line that a crash left behind is cut off before appending (its events were not reported
    written, so the writer writes them again).
    """

    def __init__(
        self,
        path: str,
        max_bytes: int = 64 * 2**20,
        backups: int | None = 5,
        *,
        max_age_s: float | None = None,
        durable: bool = False,
    ) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes
        self.backups = backups
        self.max_age_s = max_age_s
        self.durable = durable
        self._lock = threading.Lock()
        self._started_at: float | None = None  # when the open file got its first line, if known
        self.last_error: str | None = None  # of the last append or close, None when it succeeded

    def send(self, batch: list[Event], deadline: Deadline) -> Outcome:
        written = self.write(batch)
        return Outcome(delivered=written, failed=batch[written:])

    def write(self, events: list[Event]) -> int:
        """Append `events`; return how many were written before any I/O error."""
        return self.append([json.dumps(event, separators=(",", ":")).encode() + b"\n" for event in events])

    def append(self, lines: list[bytes]) -> int:
        """Append `lines` (each one serialised event ending in a line break), rotating as needed; return how
        many are in the file (flushed, and synced when `durable`) before any I/O error. What an error cut
        short is removed again, so the file never keeps part of a line."""
        written = 0
        with self._lock:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                while written < len(lines):
                    written += self._append_some(lines[written:])
                self.last_error = None
            except OSError as exc:
                self.last_error = f"cannot write {self.path}: {exc}"
                log.warning("tributary: cannot write lineage file %s: %s", self.path, exc)
        return written

    def _append_some(self, lines: list[bytes]) -> int:
        """Append the first of `lines` that fit in the open file (at least one, after closing the file when it
        is full or old); return how many."""
        flags = (os.O_RDWR if self.durable else os.O_WRONLY) | os.O_APPEND | os.O_CREAT
        fd = os.open(self.path, flags, 0o666)
        try:
            size = os.fstat(fd).st_size
            if size and self.durable:
                size = _cut_torn_tail(fd, size, name=self.path)
            if size and self._due(size, lines[0]):
                os.close(fd)
                fd = -1
                self._close_file()
                return 0
            start, count = size, 0
            for line in lines:
                if count and size + len(line) > self.max_bytes:
                    break
                size += len(line)
                count += 1
            try:
                _write_all(fd, b"".join(lines[:count]))
                if self.durable:
                    os.fsync(fd)
            except OSError:
                # A line cut short (by a full disk) would be glued to the next one written.
                with suppress(OSError):
                    os.ftruncate(fd, start)
                raise
        finally:
            if fd >= 0:
                os.close(fd)
        if start == 0:
            self._started_at = time.time()
            if self.durable:
                _sync_directory(self.path.parent)
        return count

    def _due(self, size: int, line: bytes) -> bool:
        """Whether the open file (`size` bytes, not empty) is to be closed before `line` is appended."""
        return size + len(line) > self.max_bytes or self._old()

    def _old(self) -> bool:
        if self.max_age_s is None:
            return False
        if self._started_at is None:
            # Opened before this process started: its age counts from its last write, at the latest.
            try:
                self._started_at = self.path.stat().st_mtime
            except FileNotFoundError:
                return False
        return time.time() - self._started_at >= self.max_age_s

    def close_file(self, *, when_old: bool) -> Path | None:
        """Close (rotate) the open file if it holds anything, or, with `when_old`, only once it is `max_age_s`
        old, even if nothing is being written; return the name it now has."""
        with self._lock:
            try:
                if not self.path.exists() or not self.path.stat().st_size or (when_old and not self._old()):
                    return None
                return self._close_file()
            except OSError as exc:
                self.last_error = f"cannot close {self.path}: {exc}"
                log.warning("tributary: cannot close lineage file %s: %s", self.path, exc)
                return None

    def _close_file(self) -> Path | None:
        self._started_at = None
        closed: Path | None
        if self.backups is None:
            closed = self._closed_name()
            os.rename(self.path, closed)
        else:
            closed = self._rotate()
        if self.durable:
            _sync_directory(self.path.parent)
        return closed

    def _closed_name(self) -> Path:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
        stem = self.path.stem.lstrip(".") or "events"
        for n in range(1000):
            closed = self.path.with_name(f"{stem}-{stamp}{f'-{n}' if n else ''}{self.path.suffix}")
            if not closed.exists():
                return closed
        raise FileExistsError(f"no free name for a closed file beside {self.path}")

    def _rotate(self) -> Path | None:
        assert self.backups is not None
        if self.backups <= 0:
            self.path.unlink(missing_ok=True)
            return None
        for i in range(self.backups - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{i}")
            if older.exists():
                os.replace(older, self.path.with_name(f"{self.path.name}.{i + 1}"))
        newest = self.path.with_name(f"{self.path.name}.1")
        os.replace(self.path, newest)
        return newest

    @property
    def ledger_path(self) -> Path:
        """Where replay records what it delivered (hidden: `ship` on the same directory passes it by)."""
        return self.path.with_name(f".{self.path.name}.replayed")

    def closed_files(self) -> list[Path]:
        """The closed (rotated) files that exist, oldest first."""
        if self.backups is not None:
            names = [self.path.with_name(f"{self.path.name}.{i}") for i in range(self.backups, 0, -1)]
            return [path for path in names if path.exists()]
        stem = self.path.stem.lstrip(".") or "events"
        found = []
        for path in self.path.parent.glob(f"{stem}-*{self.path.suffix}"):
            try:
                found.append((path.stat().st_mtime_ns, path.name, path))
            except FileNotFoundError:
                continue
        return [path for _, _, path in sorted(found)]

    def files(self) -> list[Path]:
        """The closed files and the open one that exist, oldest first."""
        return [*self.closed_files(), *([self.path] if self.path.exists() else [])]

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


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _cut_torn_tail(fd: int, size: int, *, name: Path) -> int:
    """Cut a last line without its line break off the file; return the size it then has."""
    if os.pread(fd, 1, size - 1) == b"\n":
        return size
    end = size
    while end > 0:
        start = max(0, end - 65536)
        chunk = os.pread(fd, end - start, start)
        at = chunk.rfind(b"\n")
        if at >= 0:
            end = start + at + 1
            break
        end = start
    log.warning("tributary: cutting a torn last line off %s (%d bytes)", name, size - end)
    os.ftruncate(fd, end)
    return end


def _sync_directory(directory: Path) -> None:
    """Make a file's creation or renaming in `directory` durable."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
