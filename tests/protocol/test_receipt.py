"""The batch receipt both sides of the wire write and read: its members, and what a reader refuses to guess at."""

from __future__ import annotations

from typing import Any

import pytest

from lineage_protocol import FailedEvent, batch_receipt, receipt_failures


def test_a_receipt_counts_what_failed_and_whether_it_may_be_sent_again() -> None:
    failed = [
        FailedEvent(index=3, reason="store unavailable", retriable=True),
        FailedEvent(index=1, reason="bad eventTime", retriable=False),
    ]
    assert batch_receipt(received=4, failed=failed) == {
        "status": "partial_success",
        "summary": {"received": 4, "successful": 2, "failed": 2, "retriable": 1, "non_retriable": 1},
        "failed_events": [
            {"index": 1, "reason": "bad eventTime", "retriable": False},
            {"index": 3, "reason": "store unavailable", "retriable": True},
        ],
    }
    assert batch_receipt(received=2, failed=[])["status"] == "success"


def test_a_reader_gets_back_the_failures_a_receipt_names() -> None:
    failed = [FailedEvent(index=0, reason="x", retriable=True), FailedEvent(index=2, reason="y", retriable=False)]
    assert receipt_failures(batch_receipt(received=3, failed=failed), received=3) == failed
    assert receipt_failures(batch_receipt(received=3, failed=[]), received=3) == []


@pytest.mark.parametrize(
    "payload",
    [
        None,
        {"results": []},
        {"status": "done", "summary": {"received": 2, "failed": 0}},
        {"status": "success", "summary": {"received": 3, "failed": 0}},
        {"status": "partial_success", "summary": {"received": 2, "failed": 1}, "failed_events": [{"index": 2}]},
        {"status": "partial_success", "summary": {"received": 2, "failed": 1}, "failed_events": [{"index": True}]},
        {"status": "partial_success", "summary": {"received": 2, "failed": 2}, "failed_events": [{"index": 0}]},
        {"status": "partial_success", "summary": {"received": 2, "failed": 2}, "failed_events": [{"index": 0}] * 2},
    ],
    ids=["null", "no receipt", "unknown status", "another batch", "index outside", "bool index", "count", "twice"],
)
def test_a_reader_refuses_what_is_not_a_receipt_for_the_batch(payload: Any) -> None:
    assert receipt_failures(payload, received=2) is None
