"""Resumable delivery of rotated JSON-Lines files: per file (by device and inode, so a rotation rename keeps
its place) the byte offset after the last delivered complete line, kept in a small state file."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from lineage_relay.transports import Deadline, Event, Outcome, Sink

log = logging.getLogger("lineage_relay.transports")
# A batch stays well under the server's default request limit (16 MiB).
MAX_BATCH_BYTES = 8 * 2**20


def file_key(stat: os.stat_result) -> str:
    return f"{stat.st_dev}:{stat.st_ino}"


class Ledger:
    """Where delivery stands in each file; saved (atomically) after every change, so a crash costs at
    most the re-sending of one batch, which the server answers as duplicates."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            saved = json.loads(path.read_text())
        except (OSError, ValueError):
            saved = {}
        files = saved.get("files") if isinstance(saved, dict) else None
        self._files: dict[str, dict[str, Any]] = files if isinstance(files, dict) else {}

    def position(self, key: str, *, head: str | None, size: int) -> tuple[int, int]:
        """The delivered byte offset and line count of the file `key`. A file whose first line differs
        from the recorded one (an inode reused by a new file), or that shrank, starts from 0."""
        entry = self._files.get(key)
        if not entry or entry.get("head") != head or int(entry.get("offset", 0)) > size:
            return 0, 0
        return int(entry["offset"]), int(entry.get("line", 0))

    def record(self, key: str, *, name: str, head: str | None, offset: int, line: int) -> None:
        self._files[key] = {"name": name, "head": head, "offset": offset, "line": line}
        self.save()

    def keep_only(self, keys: set[str]) -> None:
        """Forget files no longer there (delivered and deleted, or rotated away)."""
        if set(self._files) - keys:
            self._files = {key: entry for key, entry in self._files.items() if key in keys}
            self.save()

    def save(self) -> None:
        temporary = self.path.with_name(self.path.name + ".tmp")
        with temporary.open("w") as handle:
            json.dump({"files": self._files}, handle, indent=1, sort_keys=True)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.path)


def file_head(handle: IO[bytes]) -> str | None:
    """A fingerprint of the file's first complete line (None before there is one); moves the handle."""
    handle.seek(0)
    first = handle.readline()
    return hashlib.sha256(first).hexdigest() if first.endswith(b"\n") else None


@dataclass
class Delivery:
    """What a delivery did; `stopped` when the backend was unreachable or refused us (the rest waits)."""

    delivered: int = 0
    rejected: int = 0
    bad_lines: list[str] = field(default_factory=list)
    torn: list[str] = field(default_factory=list)
    stopped: bool = False


@dataclass(frozen=True)
class FileEnd:
    """Where delivery of one file ended: its key, and whether every byte of it is delivered."""

    key: str
    offset: int
    finished: bool


def file_deliver(
    path: Path, *, ledger: Ledger, sink: Sink, batch_size: int, deadline: Deadline, delivery: Delivery
) -> FileEnd | None:
    """Send the complete lines of `path` after its delivered offset, in batches, recording each delivered
    batch; a last line without a line break waits. None if the file is gone."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return None
    with handle:
        stat = os.fstat(handle.fileno())
        key, head = file_key(stat), file_head(handle)
        offset, line = ledger.position(key, head=head, size=stat.st_size)
        handle.seek(offset)
        batch: list[Event] = []
        batch_bytes = 0
        end = offset  # after the last complete line read
        finished = True
        for text in iter(handle.readline, b""):
            if not text.endswith(b"\n"):
                delivery.torn.append(f"{path}:{line + 1}")
                finished = False
                break
            line += 1
            end += len(text)
            try:
                batch.append(json.loads(text))
                batch_bytes += len(text)
            except ValueError as exc:
                delivery.bad_lines.append(f"{path}:{line}: not a JSON event ({exc})")
            if len(batch) >= batch_size or batch_bytes >= MAX_BATCH_BYTES:
                if not _batch_send(batch, sink=sink, deadline=deadline, delivery=delivery):
                    return FileEnd(key, offset, finished=False)
                batch, batch_bytes, offset = [], 0, end
                ledger.record(key, name=path.name, head=head, offset=offset, line=line)
        if batch and not _batch_send(batch, sink=sink, deadline=deadline, delivery=delivery):
            return FileEnd(key, offset, finished=False)
        if end != offset:  # the last batch, or bad lines only
            offset = end
            ledger.record(key, name=path.name, head=head, offset=offset, line=line)
        return FileEnd(key, offset, finished=finished)


def _batch_send(batch: list[Event], *, sink: Sink, deadline: Deadline, delivery: Delivery) -> bool:
    """Send `batch`; False when the backend is unreachable or refuses us. A batch refused for its content
    is sent again one event at a time, so one bad event costs only itself (counted as rejected)."""
    outcome = sink.send(batch, deadline)
    if outcome.failed and outcome.refused and len(batch) > 1:
        outcome = _one_by_one(batch, sink=sink, deadline=deadline)
    if outcome.failed and not outcome.refused:
        delivery.stopped = True
        return False
    delivery.delivered += outcome.delivered
    delivery.rejected += outcome.rejected + len(outcome.failed)
    return True


def _one_by_one(batch: list[Event], *, sink: Sink, deadline: Deadline) -> Outcome:
    total = Outcome(refused=True)
    for event in batch:
        outcome = sink.send([event], deadline)
        if outcome.failed and not outcome.refused:
            return Outcome(failed=batch)
        total.delivered += outcome.delivered
        total.rejected += outcome.rejected
        total.failed += outcome.failed
    return total
