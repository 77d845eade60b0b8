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


# The transparency log's paths a witness uses (docs/ledger.md, "Witnesses").
CHECKPOINT_PATH = "/api/v1/ledger/checkpoint"
CONSISTENCY_PATH = "/api/v1/ledger/consistency"
COSIGNATURE_PATH = "/api/v1/ledger/cosignatures"
WITNESS_ALARM_PATH = "/api/v1/ledger/witness-alarms"
# The code of the server's 409 when its own store cannot give a consistency proof: a witness refuses on it.
LOG_TAMPERED = "log_tampered"
