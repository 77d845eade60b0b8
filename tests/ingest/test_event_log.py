"""The event log's hand-written statements: every column of a new row holds the value meant for it, and the lookup
of stored content hashes finds exactly the stored ones."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lineage_app.accounts.models import ApiToken
from lineage_app.accounts.services import token_create
from lineage_app.ingest.event_log import MARK_CHUNK, log_insert, log_known
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.validation import CheckedEvent, event_check
from tests.events import T0, dataset, facet, new_run_id, run_event

pytestmark = pytest.mark.django_db


def _checked(i: int, *, warned: bool) -> tuple[CheckedEvent, bytes]:
    """An event whose indexed values all differ from one another (a value in the wrong column shows)."""
    event = run_event(
        "COMPLETE",
        run_id=new_run_id(),
        job=f"job-{i}",
        namespace=f"ns-{i}",
        at=T0 + timedelta(minutes=i),
        outputs=[dataset("file:///lake", f"out-{i}")],
    )
    if warned:  # a processing_engine facet without its required version: a warning, not a refusal
        event["run"]["facets"]["processing_engine"] = facet(name="spark")
    raw = json.dumps(event, indent=1).encode()
    checked = event_check(json.loads(raw))
    assert bool(checked.warnings) is warned
    return checked, raw


# Every column a new row sets: all but the id, `fold_pending` (set only when an event is applied) and the
# apply task's claim (`claimed_by`, `claimed_until`: set only when a worker takes the event).
UNSET = ("id", "fold_pending", "claimed_by", "claimed_until")
SET = [field for field in LineageEvent._meta.concrete_fields if field.name not in UNSET]


def _assert_stored(checked: CheckedEvent, raw: bytes, token: ApiToken | None, event_id: int) -> None:
    row = LineageEvent.objects.get(id=event_id)
    assert {field.name: getattr(row, field.name) for field in SET} == {
        "content_hash": checked.content_hash,
        "raw": raw,
        "payload": checked.payload,
        "kind": "run",
        "event_type": "COMPLETE",
        "event_time": checked.event_time,
        "run_id": checked.run_id,
        "job_namespace": checked.job_namespace,
        "job_name": checked.job_name,
        "received_at": row.received_at,  # the time of the insert, checked below
        "token": token,
        "status": LineageEvent.Status.PENDING,
        "status_reason": "",
        "verification": "",
        "attempts": 0,
        "applied_at": None,
        "facet_warnings": checked.warnings_stored(),
    }
    assert abs(row.received_at - checked.event_time) > timedelta(days=1)  # not the event's time by mistake
    assert (row.claimed_by, row.claimed_until) == ("", None)  # no worker has taken it yet


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.booleans(), min_size=1, max_size=6), st.booleans())
def test_every_column_of_each_inserted_event_reads_back_as_the_event_gave_it(
    warned: list[bool], with_token: bool
) -> None:
    token = token_create(name="log insert", scope="ingest")[0] if with_token else None
    events = [_checked(i, warned=w) for i, w in enumerate(warned)]
    ids = log_insert([(checked, raw, token) for checked, raw in events])
    assert len(ids) == len(events)
    for checked, raw in events:
        _assert_stored(checked, raw, token, ids[checked.content_hash])


def test_a_batch_larger_than_one_statement_is_inserted_whole() -> None:
    fields: list[Any] = SET
    rows = 1 + connection.ops.bulk_batch_size(fields, [None] * 10_000)  # more than one statement's rows
    if rows > 400:
        pytest.skip(f"{connection.vendor} takes {rows - 1} rows a statement")
    events = [_checked(i, warned=i == rows - 1) for i in range(rows)]
    ids = log_insert([(checked, raw, None) for checked, raw in events])
    assert len(ids) == rows
    for checked, raw in (events[0], events[-1]):
        _assert_stored(checked, raw, None, ids[checked.content_hash])


def test_the_lookup_of_stored_hashes_answers_the_stored_ones_by_id_in_statements_of_any_number() -> None:
    stored = [_checked(i, warned=False) for i in range(3)]
    ids = log_insert([(checked, raw, None) for checked, raw in stored])
    unknown = [f"{i:064x}" for i in range(2 * MARK_CHUNK)]  # more than two statements' worth of hashes
    asked = [
        unknown[0],
        stored[0][0].content_hash,
        *unknown[1:MARK_CHUNK],
        stored[2][0].content_hash,
        *unknown[MARK_CHUNK:],
    ]
    assert log_known(asked) == {
        checked.content_hash: ids[checked.content_hash] for checked, _ in (stored[0], stored[2])
    }
    assert log_known([]) == {}
    assert log_known(unknown[:3]) == {}
