"""What the graph needs of a stored event: its payload, its time and its content hash."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from lineage_app.graph.model import utc_key


def utc_text(moment: datetime) -> str:
    """Fixed-width UTC text, so string order is time order in both graph engines."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True, kw_only=True)
class EventRecord:
    """One event from the log, as the projection reads it."""

    content_hash: str
    event_time: datetime
    payload: dict[str, Any]

    @property
    def time(self) -> str:
        return utc_text(self.event_time)

    @property
    def order_key(self) -> str:
        return utc_key(self.time, self.content_hash)
