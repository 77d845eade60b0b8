"""File mode: the relay writes its buffered events, in arrival order, to rotated JSON-Lines files that are
carried to a connected site and loaded there (`python -m lineage_relay.ship`, `manage.py import_events`)."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lineage_relay.buffer import Pending
from lineage_relay.drain import Drain
from lineage_relay.transports.file import FileSink

log = logging.getLogger("lineage_relay")

# The file being written is hidden (ship and `ls` pass it by); each closed file is `relay-<UTC time>.jsonl`.
OPEN_NAME = ".relay.jsonl"
LOCK_NAME = ".relay.lock"
_IDLE_CHECK_S = 1.0  # how often, while nothing is pending, the open file is checked for its age


@dataclass
class OutputStatus:
    """What the relay knows about its output directory, for `/healthz` and `/metrics`."""

    sink: FileSink
    writable: bool | None = None  # whether the last write succeeded; None before the first
    last_write_at: float | None = None
    last_error: str | None = None

    @property
    def directory(self) -> Path:
        return self.sink.path.parent

    def closed_files(self) -> tuple[int, int]:
        """How many closed files the directory holds, and their bytes: what waits to be carried away."""
        count = size = 0
        for path in self.sink.closed_files():
            try:
                size += path.stat().st_size
                count += 1
            except FileNotFoundError:  # carried away meanwhile
                continue
        return count, size


def output_sink(directory: Path, *, max_bytes: int, max_age_s: float) -> FileSink:
    """The relay's files: closed by size and by age, each kept (never renamed again, never deleted), synced."""
    return FileSink(str(directory / OPEN_NAME), max_bytes, backups=None, max_age_s=max_age_s, durable=True)


def directory_lock(directory: Path) -> int:
    """Hold the output directory for this process (two relays writing one directory would mix their files);
    `OSError` when another process holds it. The lock goes with the process."""
    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise OSError(f"another process writes to {directory} (it holds {directory / LOCK_NAME})") from None
    return fd


def event_line(body: bytes) -> bytes:
    """One buffered event as one line. An event signed at its source is buffered byte for byte and may be
    pretty-printed: it is written compact (the server hashes and verifies the canonical form, which is the same)."""
    if b"\n" in body or b"\r" in body:
        body = json.dumps(json.loads(body), separators=(",", ":"), ensure_ascii=False).encode()
    return body + b"\n"


class FileWriter(Drain):
    """Appends pending events to the output files in arrival order and records them written once they are
    synced to disk; backs off while the directory cannot be written, and closes the open file once it is
    old even while nothing arrives.

    A crash between the sync and the buffer's commit writes those events again after the restart: the
    files then hold them twice, which loading on the other side absorbs (the server stores an event once,
    by the content hash of its canonical form)."""

    name = "writing"

    def __init__(self, *, status: OutputStatus, **drain: Any) -> None:
        super().__init__(**drain)
        self.status = status
        self.sink = status.sink

    def stop(self, *, timeout_s: float) -> None:
        """Stop after the batch being written, then close the open file: at rest, every written event is in
        a closed file, ready to be carried."""
        super().stop(timeout_s=timeout_s)
        closed = self.sink.close_file(when_old=False)
        if closed is not None:
            log.info("relay: closed %s", closed)

    def _deliver(self, batch: list[Pending]) -> bool:
        written = self.sink.append([event_line(event.body) for event in batch])
        if written:
            self.buffer.settle(written=batch[:written])
            self.status.last_write_at = time.time()
        self.status.writable = written == len(batch)
        self.status.last_error = None if self.status.writable else self.sink.last_error
        return self.status.writable

    def _idle(self) -> None:
        closed = self.sink.close_file(when_old=True)
        if closed is not None:
            log.info("relay: closed %s", closed)
        self._wake.wait(_IDLE_CHECK_S)
