"""The event log as JSON Lines: export it (each event's bytes as accepted, with its log record), and import such
files or plain JSON-Lines files of OpenLineage events through the same checks and accept service as the API."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lineage_app.ingest import services
from lineage_app.ingest.json_body import json_decode
from lineage_app.ingest.selectors import ExportedEvent, events_admit
from lineage_app.ingest.validation import CheckedEvent, EventInvalid
from lineage_app.instants import utc_text

# The members of an exported line that are not the event itself; `raw` holds the event's bytes.
ENVELOPE = ("receivedAt", "contentHash", "status", "verification")


def export_line(event: ExportedEvent) -> bytes:
    """One exported line: the log record, and the event's accepted bytes as a JSON string (`raw`).

    A string, not an embedded object, because an event may have been posted pretty-printed: its
    own line breaks would split a JSON-Lines record, and re-encoding would change its bytes.
    """
    record = {
        "receivedAt": utc_text(event.received_at),
        "contentHash": event.content_hash,
        "status": event.status,
        "verification": event.verification or None,
        "raw": event.raw.decode("utf-8"),
    }
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def events_export(*, events: Iterable[ExportedEvent], write: Callable[[bytes], object]) -> int:
    """Write `events` as JSON Lines through `write`; returns how many."""
    count = 0
    for event in events:
        write(export_line(event))
        count += 1
    return count


@dataclass(frozen=True, kw_only=True)
class Line:
    """One line of an import file: where it is, its bytes (without the line break), and the file
    position after it (of the compressed file for `.gz`, so a progress bar can follow the bytes read)."""

    path: Path
    number: int
    text: bytes
    complete: bool
    position: int


def file_lines(path: Path) -> Iterator[Line]:
    """The lines of `path` (gzip-compressed if its name ends `.gz`); the last one is not `complete`
    when the file does not end with a line break (a writer may still be appending it)."""
    with path.open("rb") as handle:
        reader: Iterable[bytes] = gzip.GzipFile(fileobj=handle, mode="rb") if path.name.endswith(".gz") else handle
        for number, text in enumerate(reader, start=1):
            complete = text.endswith(b"\n")
            yield Line(path=path, number=number, text=text.rstrip(b"\r\n"), complete=complete, position=handle.tell())


def line_event(value: Any, text: bytes) -> tuple[Any, bytes]:
    """The event a decoded line carries, and its bytes: an exported line's `raw`, or the line itself
    (an OpenLineage event as the agent's `file` transport writes it)."""
    if isinstance(value, dict) and isinstance(value.get("raw"), str) and set(ENVELOPE) <= value.keys():
        raw = str(value["raw"]).encode("utf-8")
        return json_decode(raw), raw
    return value, text


@dataclass(kw_only=True)
class ImportReport:
    """What an import did: lines read, events new / already in the log / refused, torn last lines."""

    lines: int = 0
    accepted: int = 0
    duplicate: int = 0
    rejected: int = 0
    applied: int = 0
    torn: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def events_import(
    *,
    paths: Iterable[Path],
    apply: bool = False,
    batch_size: int = 500,
    progress: Callable[[int], object] = lambda n: None,
) -> ImportReport:
    """Import every line of `paths` into the log, each event checked as the API checks a batch's
    element and stored by the same accept service (content hash dedup: re-importing is free).

    Events are stored pending, so the workers verify their signatures and apply them; with
    `apply` they are verified and applied here, batch by batch, for a site without workers (with
    those an earlier import stored and left unapplied).
    A refused line is reported as `file:line: message` and counted; the import goes on. A last
    line without a line break that is not valid JSON is torn (a writer stopped mid-line), not an error.
    `progress` is called with the bytes of file read since its last call.
    """
    report = ImportReport()
    for path in paths:
        batch: list[tuple[Line, Any, bytes]] = []
        position = 0
        for line in file_lines(path):
            progress(line.position - position)
            position = line.position
            if not line.text.strip():
                continue
            try:
                value = json_decode(line.text)
            except EventInvalid as exc:
                if line.complete:
                    report.lines += 1
                    _refused(report, line, exc)
                else:
                    report.torn.append(f"{path}:{line.number}")
                continue
            report.lines += 1
            try:
                batch.append((line, *line_event(value, line.text)))
            except EventInvalid as exc:
                _refused(report, line, exc)
                continue
            if len(batch) >= batch_size:
                _import_batch(batch, report, apply=apply)
                batch = []
        _import_batch(batch, report, apply=apply)
    return report


def _refused(report: ImportReport, line: Line, exc: EventInvalid) -> None:
    report.rejected += 1
    where = f" at {exc.path}" if exc.path else ""
    report.errors.append(f"{line.path}:{line.number}: {exc.message}{where}")


def _import_batch(batch: list[tuple[Line, Any, bytes]], report: ImportReport, *, apply: bool) -> None:
    kept: list[tuple[Line, CheckedEvent, bytes]] = []
    admitted = events_admit(items=[(value, raw) for _, value, raw in batch])
    for (line, _, raw), outcome in zip(batch, admitted, strict=True):
        if isinstance(outcome, EventInvalid):
            _refused(report, line, outcome)
        else:
            kept.append((line, outcome, raw))
    if not kept:
        return
    answers = services.events_accept(items=[(event, raw) for _, event, raw in kept], token=None)
    new_ids = [answer.id for answer in answers if not answer.duplicate]
    report.accepted += len(new_ids)
    report.duplicate += len(answers) - len(new_ids)
    if apply:
        # Duplicates too: an event an earlier import stored but could not apply (the graph was down)
        # is applied now; those already applied or quarantined are left as they are.
        report.applied += services.events_apply(event_ids=[answer.id for answer in answers])
