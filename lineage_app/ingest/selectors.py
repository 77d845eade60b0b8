"""Ingestion reads: which logged events still wait to be applied, what the log holds for a run,
which facet policy a namespace has, how many facet warnings each producer has caused, and which
events an export writes or retention may prune."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from django.conf import settings
from django.db.models import Count, F, Max, Min, Q, QuerySet, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from lineage_app.graph import validity as graph_validity
from lineage_app.graph.model import RunState
from lineage_app.graph.run_state import STATE_AFTER, TERMINAL
from lineage_app.graph.validity import GraceFor
from lineage_app.ingest.models import FacetPolicy, GraphCheck, LineageEvent, StaleGrace
from lineage_app.ingest.validation import CheckedEvent, EventInvalid, event_check
from lineage_app.instants import utc_text
from lineage_app.ledger.checkpoint_history import witness_gauges
from lineage_app.ledger.proofs import log_gauges
from lineage_app.ledger.selectors import ledger_gauges
from lineage_app.observability.exposition import EventLogGauges, GraphCheckGauges
from lineage_protocol import STREAMING_FACET


def applyable_event_ids(*, event_ids: Sequence[int]) -> list[int]:
    """Those of `event_ids` still waiting to be applied (pending, or failed and sent again)."""
    return list(
        LineageEvent.objects.filter(id__in=event_ids, status__in=LineageEvent.APPLYABLE).values_list("id", flat=True)
    )


def pending_event_ids(*, older_than_seconds: int, limit: int, unclaimed: bool = False) -> list[int]:
    """Pending events received more than `older_than_seconds` ago, oldest event time first; with
    `unclaimed`, only those no apply task holds (`ingest.services.events_claim`)."""
    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    pending = LineageEvent.objects.filter(status=LineageEvent.Status.PENDING, received_at__lte=cutoff)
    if unclaimed:
        pending = pending.filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=timezone.now()))
    return list(pending.order_by("event_time", "id").values_list("id", flat=True)[:limit])


def runs_fold_pending(*, event_ids: Sequence[int]) -> list[str]:
    """The runs of those of `event_ids` applied but never settled (their worker died after marking them)."""
    if not event_ids:
        return []
    unsettled = LineageEvent.objects.filter(id__in=list(event_ids), fold_pending=True)
    return list(unsettled.order_by().values_list("run_id", flat=True).distinct())


def runs_unsettled(*, older_than_seconds: int, limit: int) -> list[str]:
    """Runs with an event applied more than `older_than_seconds` ago whose fold no worker settled."""
    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    unsettled = LineageEvent.objects.filter(fold_pending=True, applied_at__lte=cutoff)
    return list(unsettled.order_by().values_list("run_id", flat=True).distinct()[:limit])


def run_events(*, run_id: str) -> list[dict[str, Any]]:
    """Every logged event of a run, quarantined ones included, in eventTime order; an event stored
    with facets left out (they failed their schema) has `warnings`."""
    rows = (
        LineageEvent.objects.filter(run_id=run_id.lower())
        .order_by("event_time", "id")
        .values("id", "event_type", "event_time", "verification", "status", "facet_warnings", "content_hash")
    )
    return [
        {
            "id": row["id"],
            "contentHash": row["content_hash"],
            "eventType": row["event_type"],
            "eventTime": utc_text(row["event_time"]),
            "verification": row["verification"] or None,
            "status": row["status"],
            # Only an event stored with facets left out names them (the answer it got when posted).
            **(
                {"warnings": [{"path": w["path"], "message": w["message"]} for w in row["facet_warnings"]]}
                if row["facet_warnings"]
                else {}
            ),
        }
        for row in rows
    ]


def run_streaming_latest(*, run_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """For each run whose latest logged event (quarantined ones aside) carries a valid `tributary_streaming`
    run facet: that event's `eventType`, `eventTime` and the facet (two queries, however many runs)."""
    # The latest event's id per run first (one pass over the runs' rows), then only those payloads are read:
    # a streaming run has an event per progress interval, thousands a day.
    latest = (
        LineageEvent.objects.filter(run_id__in=list(run_ids))
        .exclude(status=LineageEvent.Status.QUARANTINED)
        .annotate(
            recency=Window(RowNumber(), partition_by=[F("run_id")], order_by=[F("event_time").desc(), F("id").desc()])
        )
        .filter(recency=1)
        .values_list("id", flat=True)
    )
    rows = LineageEvent.objects.filter(id__in=list(latest)).values(
        "run_id", "event_type", "event_time", "facet_warnings", f"payload__run__facets__{STREAMING_FACET}"
    )
    found = {}
    for row in rows:
        facet = row[f"payload__run__facets__{STREAMING_FACET}"]
        # a facet that failed its schema was left out of the graph: it is left out here too
        left_out = any(w.get("at") == ["run", "facets", STREAMING_FACET] for w in row["facet_warnings"] or [])
        if isinstance(facet, dict) and not left_out:
            found[row["run_id"]] = {
                "eventType": row["event_type"],
                "eventTime": row["event_time"],
                "facet": facet,
            }
    return found


def streaming_silence(*, latest: Mapping[str, Any], now: datetime) -> timedelta | None:
    """How long a streaming run has been stalled for, from its `run_streaming_latest` entry: not ended, and
    silent for more than `STREAMING_STALL_INTERVALS` of the query's own progress intervals (the UI's badge
    and the `stream_stalled` alert share this); None when it is not stalled."""
    interval = latest["facet"].get("intervalSeconds")
    if not isinstance(interval, int | float) or isinstance(interval, bool) or interval <= 0:
        return None
    silent = now - latest["eventTime"]
    live = STATE_AFTER.get(latest["eventType"]) == RunState.RUNNING
    stalled = live and silent.total_seconds() > settings.STREAMING_STALL_INTERVALS * interval
    return silent if stalled else None


class RunActivity(NamedTuple):
    """A run's newest logged event time, and whether it ended."""

    run_id: str
    last: datetime
    ended: bool


def jobs_newest_runs(*, since: datetime) -> dict[tuple[str, str], RunActivity]:
    """Each job's newest run among those with a run event (quarantined ones aside) since `since`: the run whose
    latest event is newest, when it was, and whether the run ended (one aggregate over the window's events)."""
    rows = (
        LineageEvent.objects.filter(kind=LineageEvent.Kind.RUN, event_time__gte=since)
        .exclude(status=LineageEvent.Status.QUARANTINED)
        .exclude(run_id="")
        .values("job_namespace", "job_name", "run_id")
        .annotate(last=Max("event_time"), ends=Count("id", filter=Q(event_type__in=list(TERMINAL))))
        .order_by()
    )
    newest: dict[tuple[str, str], RunActivity] = {}
    for row in rows:
        job = (row["job_namespace"], row["job_name"])
        seen = newest.get(job)
        if seen is None or (row["last"], row["run_id"]) > (seen.last, seen.run_id):
            newest[job] = RunActivity(run_id=row["run_id"], last=row["last"], ended=row["ends"] > 0)
    return newest


def events_jobs(*, content_hashes: Sequence[str]) -> dict[str, tuple[str, str]]:
    """The job (namespace, name) of each logged event with one of `content_hashes` (those with no job left out)."""
    rows = LineageEvent.objects.filter(content_hash__in=list(content_hashes)).exclude(job_namespace="")
    return {
        h: (namespace, name) for h, namespace, name in rows.values_list("content_hash", "job_namespace", "job_name")
    }


def run_verification_statuses(*, run_ids: Sequence[str]) -> dict[str, list[str]]:
    """The signature status of every logged event of each run (one query for many runs)."""
    statuses: dict[str, list[str]] = defaultdict(list)
    for run_id, status in LineageEvent.objects.filter(run_id__in=list(run_ids)).values_list("run_id", "verification"):
        statuses[run_id].append(status or "")
    return statuses


def facet_policy_modes(*, namespaces: Iterable[str]) -> dict[str, str]:
    """The facet policy of each namespace: its `FacetPolicy`, else `FACET_POLICY`."""
    wanted = set(namespaces)
    modes = dict(FacetPolicy.objects.filter(namespace__in=wanted).values_list("namespace", "mode"))
    return {namespace: modes.get(namespace, settings.FACET_POLICY) for namespace in wanted}


def stale_grace_policy() -> GraceFor:
    """The grace each job namespace's edges get before they turn stale: its `StaleGrace` row, else the
    settings (read once: the answer serves a whole batch)."""
    default = graph_validity.StaleGrace(runs=settings.LINEAGE_STALE_AFTER_RUNS, days=settings.LINEAGE_STALE_AFTER_DAYS)
    rows = StaleGrace.objects.values_list("namespace", "after_runs", "after_days")
    overrides = {namespace: graph_validity.StaleGrace(runs=runs, days=days) for namespace, runs, days in rows}
    return lambda namespace: overrides.get(namespace, default)


def facet_policy_refusals(*, events: Sequence[CheckedEvent]) -> list[EventInvalid | None]:
    """For each event, the error a strict facet policy refuses it with (its first invalid facet), or None.

    Only events with facet warnings are looked up (in one query): a clean event costs nothing.
    """
    warned = [event for event in events if event.warnings]
    if not warned:
        return [None] * len(events)
    modes = facet_policy_modes(namespaces={event.policy_namespace for event in warned})
    return [
        event.warnings[0].as_error()
        if event.warnings and modes[event.policy_namespace] == FacetPolicy.Mode.STRICT
        else None
        for event in events
    ]


def events_admit(*, items: Sequence[tuple[Any, bytes]]) -> list[CheckedEvent | EventInvalid]:
    """Each decoded event (with its bytes as sent) checked as ingestion admits one, by HTTP or from a file:
    the size limit, the core schema (`event_check`) and a strict facet policy. For each, the checked
    event or the error that refuses it, in order (the facet policies are looked up once)."""
    admitted: list[CheckedEvent | EventInvalid] = []
    for value, raw in items:
        try:
            if len(raw) > settings.INGEST_MAX_EVENT_BYTES:
                raise EventInvalid(f"event is {len(raw)} bytes; the limit is {settings.INGEST_MAX_EVENT_BYTES} bytes")
            admitted.append(event_check(value))
        except EventInvalid as exc:
            admitted.append(exc)
    refusals = iter(facet_policy_refusals(events=[a for a in admitted if isinstance(a, CheckedEvent)]))
    return [a if isinstance(a, EventInvalid) else (next(refusals) or a) for a in admitted]


def facet_warning_counts() -> list[dict[str, Any]]:
    """How many stored events had each facet left out, per producer and facet, most first."""
    counts: Counter[tuple[str, str]] = Counter()
    rows = LineageEvent.objects.filter(facet_warnings__isnull=False).values_list("payload__producer", "facet_warnings")
    for producer, warnings in rows.iterator():
        for facet in {str(w["at"][-1]) if w.get("at") else w["path"] for w in warnings or []}:
            counts[(str(producer or ""), facet)] += 1
    return [
        {"producer": producer, "facet": facet, "events": count}
        for (producer, facet), count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]


class ExportedEvent(NamedTuple):
    """What an export writes of one logged event."""

    raw: bytes
    received_at: datetime
    content_hash: str
    status: str
    verification: str


def events_for_export(
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    namespace: str | None = None,
    status: str | None = None,
) -> Iterator[ExportedEvent]:
    """The logged events received in [`since`, `until`), of one namespace (the job's, or the dataset's
    for a DatasetEvent) and status if given, in log order; streamed, so memory stays constant."""
    events = LineageEvent.objects.order_by("id")
    if since is not None:
        events = events.filter(received_at__gte=since)
    if until is not None:
        events = events.filter(received_at__lt=until)
    if namespace:
        events = events.filter(
            Q(job_namespace=namespace) | Q(kind=LineageEvent.Kind.DATASET, payload__dataset__namespace=namespace)
        )
    if status:
        events = events.filter(status=status)
    rows = events.values_list("raw", "received_at", "content_hash", "status", "verification")
    for raw, received_at, content_hash, event_status, verification in rows.iterator(chunk_size=500):
        yield ExportedEvent(bytes(raw), received_at, content_hash, event_status, verification)


def prunable_events(*, received_before: datetime) -> QuerySet[LineageEvent]:
    """Applied events received before `received_before`, oldest first.

    An event of a run is prunable only when its whole run is: every event of it applied and
    received before the cutoff. Applying a run's event folds the run over the events the log
    still holds, so keeping a live run's history whole keeps its node what the whole history made it.
    """
    live_runs = (
        LineageEvent.objects.exclude(run_id="")
        .filter(Q(received_at__gte=received_before) | ~Q(status=LineageEvent.Status.APPLIED))
        .values("run_id")
    )
    return (
        LineageEvent.objects.filter(status=LineageEvent.Status.APPLIED, received_at__lt=received_before)
        .exclude(run_id__in=live_runs)
        .order_by("received_at", "id")
    )


def event_log_gauges() -> EventLogGauges:
    """What the metrics endpoint reports of the event log when scraped: events by status and by
    verification status, and when the oldest pending one was received."""
    events = LineageEvent.objects.order_by()
    oldest = events.filter(status=LineageEvent.Status.PENDING).aggregate(oldest=Min("received_at"))["oldest"]
    check = GraphCheck.objects.order_by("-checked_at").first()
    return EventLogGauges(
        by_status=dict(events.values_list("status").annotate(n=Count("id"))),
        oldest_pending=oldest,
        by_verification=dict(events.values_list("verification").annotate(n=Count("id"))),
        fold_pending=events.filter(fold_pending=True).count(),
        ledger=ledger_gauges(),
        log=log_gauges(),
        witness=witness_gauges(),
        graph_check=(
            GraphCheckGauges(
                checked_at=check.checked_at, runs_checked=check.runs_checked, runs_differing=check.runs_differing
            )
            if check is not None
            else None
        ),
    )
