"""Names both sides of the wire spell the same way: Tributary's facet keys, the ingest paths, the event types."""

from __future__ import annotations

from enum import StrEnum

COUNTERS_FACET = "tributary_counters"
STREAMING_FACET = "tributary_streaming"

# The server routes these (`lineage`, `lineage-ingest-batch`); the agent and the relay post to them.
EVENT_PATH = "/api/v1/lineage"
BATCH_PATH = "/api/v1/lineage/batch"


class EventType(StrEnum):
    """An OpenLineage run event's `eventType`; members equal their strings, so stored events compare as before."""

    START = "START"
    RUNNING = "RUNNING"
    COMPLETE = "COMPLETE"
    ABORT = "ABORT"
    FAIL = "FAIL"
    OTHER = "OTHER"
