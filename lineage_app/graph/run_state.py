"""A run's state as a pure fold over its events sorted by eventTime, whatever order they came in."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from lineage_app.graph.events import EventRecord
from lineage_app.graph.facets import airflow_trigger, tag_texts
from lineage_app.graph.failure_cause import CANCELLED, DATA_QUALITY, failure_cause
from lineage_app.graph.model import FAILED_STATES, RunState, json_property, run_order_key
from lineage_app.graph.quality import FAILED, dataset_checks, event_checks, failing_cause, run_tests
from lineage_app.instants import utc_text
from lineage_protocol import EventType

STATE_AFTER = {
    EventType.START: RunState.RUNNING.value,
    EventType.RUNNING: RunState.RUNNING.value,
    EventType.COMPLETE: RunState.COMPLETED.value,
    EventType.FAIL: RunState.FAILED.value,
    EventType.ABORT: RunState.ABORTED.value,
}
TERMINAL = frozenset({EventType.COMPLETE, EventType.FAIL, EventType.ABORT})
# At the same instant a run starts before it runs, and runs before it ends.
RANK = {
    EventType.START: 0,
    EventType.RUNNING: 1,
    EventType.OTHER: 2,
    EventType.COMPLETE: 3,
    EventType.FAIL: 3,
    EventType.ABORT: 3,
}


@dataclass(frozen=True, kw_only=True)
class ParentRun:
    run_id: str
    job_namespace: str
    job_name: str


@dataclass(frozen=True, kw_only=True)
class RunFold:
    """Everything the graph stores on a Run node, derived from the set of its events."""

    run_id: str
    job_namespace: str
    job_name: str
    state: str
    started_at: str | None
    ended_at: str | None
    duration_ms: int | None
    nominal_start: str | None
    nominal_end: str | None
    error_message: str | None
    stack_trace: str | None
    error_language: str | None
    failure_cause: str | None  # one line: the root cause of a FAILED / ABORTED run (`graph.failure_cause`)
    failure_class: str | None  # its classification; None unless the run failed or was aborted
    parent: ParentRun | None
    # The run at the top of its chain (ParentRunFacet `root`), when the run names one other than itself.
    root: ParentRun | None
    facets: dict[str, Any]
    event_count: int
    last_event_time: str
    event_hashes: frozenset[str]
    # The events folded, in order: a completed run's confirm its job's edges (`graph.validity`).
    events: tuple[EventRecord, ...] = field(default=(), compare=False, repr=False)

    # The run's latest event naming datasets, when its job says each event is a complete snapshot of its
    # inputs and outputs (JobTypeJobFacet `emissionPattern.eventContentMode: COMPLETE_SNAPSHOT`, streaming).
    snapshot: EventRecord | None = field(default=None, compare=False, repr=False)

    @property
    def completed_order(self) -> str | None:
        """Where the run stands among its job's completed runs (its end, then its runId); None unless
        it completed. Only a completed run confirms or retires its job's edges (`graph.validity`)."""
        if self.state != RunState.COMPLETED or self.ended_at is None:
            return None
        return run_order_key(self.ended_at, self.run_id)

    @property
    def snapshot_order(self) -> str | None:
        """Where a run that has not completed stands among its job's confirming runs by its latest complete
        snapshot (that event's time, then its runId); None for a completed run or one with no snapshot."""
        if self.completed_order is not None or self.snapshot is None:
            return None
        return run_order_key(self.snapshot.time, self.run_id)

    @property
    def confirmation(self) -> tuple[str, str, tuple[EventRecord, ...]] | None:
        """What the run confirms of its job's edges, if anything: (order key, time, the events naming them).

        A completed run confirms what all its events named, or only its latest snapshot when its job
        emits complete snapshots; a running one confirms its latest snapshot, if any (a streaming query
        whose inputs changed); any other (running, failed, aborted) confirms nothing."""
        if self.completed_order is not None and self.ended_at is not None:
            return self.completed_order, self.ended_at, (self.snapshot,) if self.snapshot else self.events
        if self.snapshot_order is not None and self.snapshot is not None:
            return self.snapshot_order, self.snapshot.time, (self.snapshot,)
        return None

    def node_properties(self) -> dict[str, Any]:
        return {
            "jobNamespace": self.job_namespace,
            "jobName": self.job_name,
            "state": self.state,
            "startedAt": self.started_at,
            "endedAt": self.ended_at,
            "durationMs": self.duration_ms,
            "nominalStartTime": self.nominal_start,
            "nominalEndTime": self.nominal_end,
            "errorMessage": self.error_message,
            "stackTrace": self.stack_trace,
            "errorLanguage": self.error_language,
            "failureCause": self.failure_cause,
            "failureClass": self.failure_class,
            "parentRunId": self.parent.run_id if self.parent else None,
            "rootRunId": self.root.run_id if self.root else None,
            "facetsJson": json_property(self.facets),
            "tags": tag_texts(self.facets),  # what tag search follows of the run's `TAGGED` edges
            "trigger": airflow_trigger(self.facets),
            "eventCount": self.event_count,
            "lastEventTime": self.last_event_time,
            "completedOrder": self.completed_order,
            "snapshotOrder": self.snapshot_order,
            "snapshotAt": self.snapshot.time if self.snapshot_order is not None and self.snapshot else None,
        }


def _named_run(reference: dict[str, Any] | None) -> ParentRun | None:
    """The run a ParentRunFacet's `run` and `job` (or its `root`'s) name; None for none."""
    if not reference:
        return None
    return ParentRun(
        run_id=reference["run"]["runId"].lower(),
        job_namespace=reference["job"]["namespace"],
        job_name=reference["job"]["name"],
    )


def _root(parent: dict[str, Any] | None, run_id: str) -> ParentRun | None:
    """The chain's root run a parent facet names (1-1-0's `root`), unless it names the run itself."""
    root = _named_run((parent or {}).get("root"))
    return root if root is not None and root.run_id != run_id else None


def _sort_key(event: EventRecord) -> tuple[datetime, int, str]:
    return (event.event_time, RANK.get(event.payload.get("eventType", EventType.OTHER), 2), event.content_hash)


def _millis_between(start: datetime, end: datetime) -> int:
    return int((end - start).total_seconds() * 1000)


def _failure(state: str, error: dict[str, Any] | None) -> tuple[str | None, str | None]:
    """The root cause and class of a failed or aborted run; an abort that reports no error was cancelled."""
    if state not in FAILED_STATES:
        return None, None
    message, stack = (error or {}).get("message"), (error or {}).get("stackTrace")
    if state == RunState.ABORTED and not (message or stack):
        return None, CANCELLED
    found = failure_cause(
        message=message if isinstance(message, str) else None, stack_trace=stack if isinstance(stack, str) else None
    )
    return found.cause, found.classification


def _quality_failure(state: str, ordered: list[EventRecord]) -> str | None:
    """The cause of an ended run's failing data-quality checks (`graph.quality`), or None: the latest checks
    each dataset (by its name as sent, which the cause names) was reported with, and the run's own tests."""
    if state not in (*FAILED_STATES, RunState.COMPLETED):
        return None
    latest: dict[str, list[dict[str, Any]]] = {}
    for event in ordered:
        reported = event_checks(event.payload)
        for dataset, checks in reported:
            latest[str(dataset.get("name") or "")] = checks
        tests = run_tests(event.payload["run"].get("facets") or {})
        if tests and not reported:  # test results of no dataset: the run's own
            latest[""] = dataset_checks({}, tests=tests)
    failing = [(name, check) for name, checks in latest.items() for check in checks if check["outcome"] == FAILED]
    return failing_cause(failing) if failing else None


def run_fold(events: Iterable[EventRecord]) -> RunFold:
    """Fold a run's events: COMPLETE / FAIL / ABORT are terminal, a late START never rewinds."""
    ordered = sorted({e.content_hash: e for e in events}.values(), key=_sort_key)
    if not ordered:
        raise ValueError("a run needs at least one event")
    state = RunState.NEW.value
    terminal_at: datetime | None = None
    started_at: datetime | None = None
    facets: dict[str, Any] = {}
    error: dict[str, Any] | None = None
    job: dict[str, Any] = {}
    for event in ordered:
        payload = event.payload
        event_type = payload.get("eventType", EventType.OTHER)
        run_facets = payload["run"].get("facets") or {}
        facets.update(run_facets)
        job = payload.get("job") or job
        if event_type in (EventType.START, EventType.RUNNING) and started_at is None:
            started_at = event.event_time
        if terminal_at is not None:
            continue
        if "errorMessage" in run_facets:
            error = run_facets["errorMessage"]
        if event_type in STATE_AFTER:
            state = STATE_AFTER[event_type]
        if event_type in TERMINAL:
            terminal_at = event.event_time
    nominal = facets.get("nominalTime") or {}
    parent = facets.get("parent")
    cause, failure_class = _failure(state, error)
    quality = _quality_failure(state, ordered)
    if quality is not None:  # a failed check says more than any error the run may have reported
        cause, failure_class = quality, DATA_QUALITY
    run_id = ordered[0].payload["run"]["runId"].lower()
    return RunFold(
        run_id=run_id,
        job_namespace=job.get("namespace", ""),
        job_name=job.get("name", ""),
        state=state,
        started_at=utc_text(started_at) if started_at else None,
        ended_at=utc_text(terminal_at) if terminal_at else None,
        duration_ms=_millis_between(started_at, terminal_at) if started_at and terminal_at else None,
        nominal_start=nominal.get("nominalStartTime"),
        nominal_end=nominal.get("nominalEndTime"),
        error_message=(error or {}).get("message"),
        stack_trace=(error or {}).get("stackTrace"),
        error_language=(error or {}).get("programmingLanguage"),
        failure_cause=cause,
        failure_class=failure_class,
        parent=_named_run(parent),
        root=_root(parent, run_id),
        facets=facets,
        event_count=len(ordered),
        last_event_time=ordered[-1].time,
        event_hashes=frozenset(e.content_hash for e in ordered),
        events=tuple(ordered),
        snapshot=_latest_snapshot(ordered),
    )


SNAPSHOT = "COMPLETE_SNAPSHOT"


def _latest_snapshot(ordered: list[EventRecord]) -> EventRecord | None:
    """The latest of `ordered` (a run's events, in order) that names datasets, if the job emits complete
    snapshots: as its latest event that says how it emits says (an `ACCUMULATIVE` job merges instead)."""
    pattern = None
    for event in ordered:
        job_type = ((event.payload.get("job") or {}).get("facets") or {}).get("jobType") or {}
        mode = (job_type.get("emissionPattern") or {}).get("eventContentMode")
        pattern = mode or pattern
    if pattern != SNAPSHOT:
        return None
    named = [event for event in ordered if event.payload.get("inputs") or event.payload.get("outputs")]
    return named[-1] if named else None
