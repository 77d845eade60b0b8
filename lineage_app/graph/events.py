"""What the graph needs of a stored event: its payload, its time and its content hash."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from lineage_app.graph.model import utc_key
from lineage_app.instants import utc_text


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
