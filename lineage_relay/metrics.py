"""The relay's `/metrics` (Prometheus text exposition format 0.0.4) and `/healthz` bodies."""

from __future__ import annotations

import time
from typing import Any

from lineage_relay.buffer import EventBuffer
from lineage_relay.forwarder import ServerStatus
from lineage_relay.writer import OutputStatus

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def metrics_text(*, buffer: EventBuffer, status: ServerStatus | OutputStatus) -> str:
    counters = buffer.counters()
    backlog = buffer.backlog()
    oldest_age = 0.0 if backlog.oldest_received_at is None else max(0.0, time.time() - backlog.oldest_received_at)
    files = isinstance(status, OutputStatus)
    lines: list[str] = []

    def metric(name: str, kind: str, text: str, samples: list[tuple[str, float]]) -> None:
        lines.extend((f"# HELP {name} {text}", f"# TYPE {name} {kind}"))
        lines.extend(f"{name}{labels} {_number(value)}" for labels, value in samples)

    metric(
        "lineage_events_received_total",
        "counter",
        "Events accepted by the relay (committed to its buffer), since the buffer was created.",
        [("", counters["received"])],
    )
    if files:
        metric(
            "lineage_events_written_total",
            "counter",
            "Events written (and synced) to the output files, since the buffer was created.",
            [("", counters["written"])],
        )
    else:
        metric(
            "lineage_events_forwarded_total",
            "counter",
            "Events the server has stored (accepted or already stored), since the buffer was created.",
            [("", counters["forwarded"])],
        )
        metric(
            "lineage_events_rejected_total",
            "counter",
            "Events the server refused (kept in the buffer's `rejected` table), since the buffer was created.",
            [("", counters["rejected"])],
        )
    metric(
        "lineage_events_dropped_total",
        "counter",
        "Events refused with 503 because the relay could not buffer them, since the relay started.",
        [(f'{{reason="{reason}"}}', n) for reason, n in sorted(buffer.dropped.items())],
    )
    metric(
        "lineage_relay_backlog_events",
        "gauge",
        "Events buffered and not yet forwarded (written).",
        [("", backlog.events)],
    )
    metric(
        "lineage_relay_backlog_bytes",
        "gauge",
        "Bytes of events buffered and not yet forwarded (written).",
        [("", backlog.bytes)],
    )
    metric(
        "lineage_relay_oldest_pending_age_seconds",
        "gauge",
        "Age of the oldest event not yet forwarded (written); 0 when none is pending.",
        [("", oldest_age)],
    )
    if isinstance(status, OutputStatus):
        closed, closed_bytes = status.closed_files()
        metric(
            "lineage_relay_output_up",
            "gauge",
            "1 when the relay's last write to its output directory succeeded, else 0.",
            [("", 1 if status.writable else 0)],
        )
        metric(
            "lineage_relay_output_files",
            "gauge",
            "Closed files in the output directory: written, waiting to be carried away.",
            [("", closed)],
        )
        metric("lineage_relay_output_bytes", "gauge", "Bytes of those closed files.", [("", closed_bytes)])
    else:
        metric(
            "lineage_relay_server_up",
            "gauge",
            "1 when the server answered the relay's last request, else 0.",
            [("", 1 if status.reachable else 0)],
        )
    return "\n".join(lines) + "\n"


def health_body(*, buffer: EventBuffer, status: ServerStatus | OutputStatus) -> dict[str, Any]:
    backlog = buffer.backlog()
    counters: dict[str, Any] = buffer.counters()
    if isinstance(status, OutputStatus):
        closed, closed_bytes = status.closed_files()
        destination: dict[str, Any] = {
            "output": {
                "directory": str(status.directory),
                "writable": status.writable,
                "lastWriteAt": status.last_write_at,
                "lastError": status.last_error,
                "closedFiles": closed,
                "closedBytes": closed_bytes,
            }
        }
        counters.pop("forwarded")
        counters.pop("rejected")
    else:
        destination = {
            "server": {
                "url": status.url,
                "reachable": status.reachable,
                "lastContactAt": status.last_contact_at,
                "lastError": status.last_error,
            }
        }
        counters.pop("written")
    return {
        "status": "ok",
        "backlog": {
            "events": backlog.events,
            "bytes": backlog.bytes,
            "oldestPendingAgeSeconds": (
                None if backlog.oldest_received_at is None else round(time.time() - backlog.oldest_received_at, 3)
            ),
        },
        **destination,
        "counters": {**counters, "dropped": dict(buffer.dropped)},
    }


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))
