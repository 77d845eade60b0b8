"""The batch receipt of OpenLineage's `POST /lineage/batch` (spec 2-0-2, OpenLineage 1.40): written by
the server and the relay, read by the relay's forwarder and the transports.

A receipt says how many events the batch had, how many were taken, and which failed, each with a
reason and whether sending it again can succeed (`retriable`): an event the server could not store
for a passing reason (its store unavailable) is retriable; an event that is not an acceptable event
(its schema, its size, its bytes) fails the same way every time, so it is not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

SUCCESS = "success"
PARTIAL_SUCCESS = "partial_success"
RECEIPT_STATUSES = (SUCCESS, PARTIAL_SUCCESS)


@dataclass(frozen=True, kw_only=True)
class FailedEvent:
    """One event of a batch that was not taken: its position in the array, why, and whether to send it again."""

    index: int
    reason: str
    retriable: bool

    def as_dict(self) -> dict[str, Any]:
        return {"index": self.index, "reason": self.reason, "retriable": self.retriable}


def batch_receipt(*, received: int, failed: Sequence[FailedEvent]) -> dict[str, Any]:
    """The receipt's members for a batch of `received` events of which `failed` were not taken."""
    retriable = sum(1 for failure in failed if failure.retriable)
    return {
        "status": PARTIAL_SUCCESS if failed else SUCCESS,
        "summary": {
            "received": received,
            "successful": received - len(failed),
            "failed": len(failed),
            "retriable": retriable,
            "non_retriable": len(failed) - retriable,
        },
        "failed_events": [failure.as_dict() for failure in sorted(failed, key=lambda f: f.index)],
    }


def receipt_failures(payload: Any, *, received: int) -> list[FailedEvent] | None:
    """The failed events a receipt names for a batch of `received` events; None when `payload` is not a
    receipt for that batch (no `status` and `summary`, a count that differs, an index outside the batch),
    so the caller treats the answer as no answer rather than guessing."""
    if not isinstance(payload, dict) or payload.get("status") not in RECEIPT_STATUSES:
        return None
    summary = payload.get("summary")
    if not isinstance(summary, dict) or summary.get("received") != received:
        return None
    failures = []
    for item in payload.get("failed_events") or []:
        index = item.get("index") if isinstance(item, dict) else None
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < received:
            return None
        failures.append(
            FailedEvent(index=index, reason=str(item.get("reason") or ""), retriable=item.get("retriable") is True)
        )
    if len({failure.index for failure in failures}) != len(failures) or summary.get("failed") != len(failures):
        return None
    return failures
