"""Stalled streams: a streaming query's run, not ended, that stopped reporting progress opens one incident on its
job, told to the owners downstream; reporting again, ending, or a restarted query resolves it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from lineage_app.alerts.models import Incident, IncidentEvent, Rule
from lineage_app.alerts.overdue import streams_check
from lineage_app.notify.models import Delivery
from tests.alerts.scenario import routed
from tests.apply import accept_and_apply, as_json
from tests.events import dataset, new_run_id, run_event

pytestmark = pytest.mark.django_db

JOB = "clicks.stream.sessions"
ROOT = f"job:spark:{JOB}"
SOURCE = dataset("kafka://broker:9092", "clicks")
SINK = dataset("s3://lake", "sessions", owners=["team:sessions"])
NOW = datetime.now(UTC).replace(microsecond=0)


def streaming(**fields: Any) -> dict[str, Any]:
    """The agent's `tributary_streaming` run facet of a query reporting every 30 seconds."""
    return {
        "tributary_streaming": {
            "_producer": "https://example.com/tests/tributary",
            "_schemaURL": "https://example.com/TributaryStreamingRunFacet.json",
            "queryId": "6a1f0f8e-6c1b-4a8e-9c51-2f1b1c1d1e1f",
            "queryRunId": "0b7e5c2a-3d4f-4e5a-8b6c-7d8e9f0a1b2c",
            "queryName": "sessions",
            "startedAt": "2026-01-05T08:00:00.000Z",
            "intervalSeconds": 30.0,
            **fields,
        }
    }


def progress(run_id: str, at: datetime, *, event_type: str = "RUNNING", batch: int = 7) -> dict[str, Any]:
    return run_event(
        event_type,
        run_id=run_id,
        job=JOB,
        at=at,
        inputs=[SOURCE],
        outputs=[SINK],
        run_facets=streaming(progressAt=at.isoformat().replace("+00:00", "Z"), batchId=batch),
    )


def query_started(run_id: str, *, last_progress: datetime) -> None:
    """A query that started ten minutes before its last progress, as the agent reports it."""
    start = run_event("START", run_id=run_id, job=JOB, at=last_progress - timedelta(minutes=10), run_facets=streaming())
    accept_and_apply(start, progress(run_id, last_progress), raw=as_json)


def test_a_query_silent_past_its_intervals_and_the_floor_opens_one_incident_and_resolves_when_it_reports(
    graph: Any,
) -> None:
    run_id = new_run_id()
    query_started(run_id, last_progress=NOW - timedelta(minutes=20))
    hook = routed("team:sessions")["team:sessions"]

    assert streams_check(now=NOW) == 1
    assert streams_check(now=NOW + timedelta(minutes=5)) == 1
    incident = Incident.objects.get()
    assert (incident.kind, incident.root, incident.run_id) == (Rule.Kind.STREAM_STALLED, ROOT, run_id)
    assert incident.title == f"spark/{JOB} stalled: no progress for 20 min"
    assert "streaming query sessions" in incident.cause and "(batch 7)" in incident.cause
    assert "it reports every 30 s" in incident.cause
    assert incident.owners == ["team:sessions"], "the owners of what the query writes are told"
    assert incident.occurrences == 2, "checked again while silent: the same incident"
    assert hook.deliveries.count() == 1

    accept_and_apply(progress(run_id, NOW + timedelta(minutes=6), batch=8), raw=as_json)
    assert streams_check(now=NOW + timedelta(minutes=7)) == 0
    incident.refresh_from_db()
    assert incident.state == Incident.State.RESOLVED
    assert incident.timeline.filter(kind=IncidentEvent.Kind.RESOLVED, text__contains="reported again").exists()
    assert [d.message["title"].startswith("Resolved") for d in Delivery.objects.order_by("id")] == [False, True]


def test_a_query_quiet_for_less_than_the_floor_or_ended_or_a_batch_run_is_not_stalled(graph: Any) -> None:
    recent = new_run_id()
    query_started(recent, last_progress=NOW - timedelta(minutes=5))  # 10 intervals silent, under the 10 minutes
    assert streams_check(now=NOW) == 0

    ended = new_run_id()
    query_started(ended, last_progress=NOW - timedelta(hours=2))
    accept_and_apply(progress(ended, NOW - timedelta(hours=2) + timedelta(seconds=5), event_type="COMPLETE"))
    batch = new_run_id()  # running for an hour, but no streaming query: its silence says nothing
    accept_and_apply(run_event("START", run_id=batch, job="nightly", at=NOW - timedelta(hours=1)))
    assert streams_check(now=NOW) == 0
    assert not Incident.objects.exists()


def test_a_restarted_query_resolves_the_stalled_run_s_incident_and_the_old_run_never_reopens_it(graph: Any) -> None:
    old = new_run_id()
    query_started(old, last_progress=NOW - timedelta(minutes=30))
    assert streams_check(now=NOW) == 1

    restarted = new_run_id()  # the application was killed and started again: the old run never ended
    query_started(restarted, last_progress=NOW + timedelta(minutes=1))
    assert streams_check(now=NOW + timedelta(minutes=2)) == 0
    assert streams_check(now=NOW + timedelta(minutes=3)) == 0
    incident = Incident.objects.get()
    assert incident.state == Incident.State.RESOLVED and restarted in incident.resolved_by


def test_the_rule_switched_off_or_scoped_to_another_namespace_opens_nothing(graph: Any) -> None:
    query_started(new_run_id(), last_progress=NOW - timedelta(minutes=20))
    Rule.objects.create(kind=Rule.Kind.STREAM_STALLED, enabled=False)
    assert streams_check(now=NOW) == 0
    Rule.objects.filter(kind=Rule.Kind.STREAM_STALLED).update(enabled=True, namespaces=["elsewhere"])
    assert streams_check(now=NOW) == 1, "stalled, but out of the rule's scope"
    assert not Incident.objects.exists()
