"""Ingestion writes: accept events into the durable log, apply logged events to the graph, prune old applied ones."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from lineage_app.accounts.models import ApiToken
from lineage_app.celery import app as celery_app
from lineage_app.changes import EventsApplied, GraphRebuilt, NewConsumer, changes_publish, changes_wanted
from lineage_app.graph.events import EventRecord
from lineage_app.graph.lineage_facet import explicit_lineage_payload
from lineage_app.graph.model import KEY_SEPARATOR
from lineage_app.graph.projection import GraphWrites, graph_writes_for, writes_add_runs
from lineage_app.graph.run_state import RunFold, run_fold
from lineage_app.graph.schema import graph_schema_init
from lineage_app.graph.writer import graph_wipe, graph_writes_apply
from lineage_app.ingest.change_records import change_records
from lineage_app.ingest.event_log import log_insert, log_known, log_mark_applied, log_mark_folded
from lineage_app.ingest.group_commit import GroupCommitter, Publisher
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.selectors import prunable_events, runs_fold_pending, stale_grace_policy
from lineage_app.ingest.validation import CheckedEvent, payload_without
from lineage_app.ingest.verification import events_verify
from lineage_app.ledger.checkpoints import leaves_prune
from lineage_app.ledger.log_append import log_append
from lineage_app.ledger.proofs import leaf_indexes
from lineage_app.observability.metrics import (
    EVENTS_FAILED,
    EVENTS_QUARANTINED,
    RUNS_SETTLED_LATE,
    events_applied_record,
)
from lineage_protocol import EventType

logger = logging.getLogger(__name__)

# The registered name of `lineage_app.ingest.tasks.apply_events`: messages go out by name, so
# services (below the tasks that call them) need not import the task.
APPLY_EVENTS_TASK = "lineage_app.ingest.tasks.apply_events"
CHECKPOINT_LOG_TASK = "lineage_app.ingest.tasks.checkpoint_log"
# Events that count towards a run's state: everything stored that is not held back.
FOLDABLE = (LineageEvent.Status.APPLIED,)
REFOLD_ROUNDS = 5


@dataclass(frozen=True, kw_only=True)
class Accepted:
    id: int
    duplicate: bool
    # The event's leaf in the transparency log: a duplicate answers the leaf of the copy stored first
    # (None only for a stored event whose leaf is gone, which `manage.py check_log` reports).
    leaf_index: int | None


def event_accept(*, checked: CheckedEvent, raw: bytes, token: ApiToken | None) -> Accepted:
    """Store one checked event durably; a second copy of the same content is a duplicate.

    Concurrent accepts in this process share one commit (`group_commit`); each caller still
    returns only after the transaction holding its event has committed.
    """
    return _committer.submit((checked, raw, token))


def events_accept(*, items: Sequence[tuple[CheckedEvent, bytes]], token: ApiToken | None) -> list[Accepted]:
    """Store many checked events in one transaction; answers in the order given."""
    return events_store(rows=[(checked, raw, token) for checked, raw in items])


def events_store(*, rows: Sequence[tuple[CheckedEvent, bytes, ApiToken | None]]) -> list[Accepted]:
    """Insert the rows not yet in the log in one durable transaction; once it has committed, the
    publisher tells the workers (in one message with whatever else this process committed meanwhile)."""
    answers, new_ids = events_insert(rows=rows)
    if new_ids:
        transaction.on_commit(lambda: _publisher.add(new_ids))
        _checkpoint_when_due(answers)
    return answers


def _checkpoint_when_due(answers: Sequence[Accepted]) -> None:
    """Ask for a checkpoint once this accept crossed a multiple of `LEDGER_CHECKPOINT_EVENTS` leaves (beat signs
    the rest every `LEDGER_CHECKPOINT_SECONDS`)."""
    every = settings.LEDGER_CHECKPOINT_EVENTS
    leaves = [a.leaf_index for a in answers if not a.duplicate and a.leaf_index is not None]
    if leaves and min(leaves) // every != (max(leaves) + 1) // every:
        transaction.on_commit(lambda: _task_send(CHECKPOINT_LOG_TASK, []))


def events_insert(*, rows: Sequence[tuple[CheckedEvent, bytes, ApiToken | None]]) -> tuple[list[Accepted], list[int]]:
    """Insert the rows not yet in the log in one transaction; the answers, and the new ids to enqueue.

    The transaction is durable (never part of a caller's larger one, except a test's): when it
    returns, the rows are committed, which is what lets a group commit answer every caller in it.
    Two transactions racing to insert the same new content: the loser's unique-key violation
    rolls it back and the retry finds the winner's row, so the event is reported as a
    duplicate there, and accepted exactly once.
    """
    try:
        with transaction.atomic(durable=True):
            return _insert_new(rows)
    except IntegrityError:
        with transaction.atomic(durable=True):
            return _insert_new(rows)


def _insert_new(
    rows: Sequence[tuple[CheckedEvent, bytes, ApiToken | None]],
) -> tuple[list[Accepted], list[int]]:
    hashes = [checked.content_hash for checked, _, _ in rows]
    known = log_known(set(hashes))
    fresh: dict[str, tuple[CheckedEvent, bytes, ApiToken | None]] = {}
    for row in rows:
        if row[0].content_hash not in known:
            fresh.setdefault(row[0].content_hash, row)
    received_at = timezone.now()
    ids = log_insert(list(fresh.values()), received_at=received_at) if fresh else {}
    # Last in the transaction: the log's head stays locked only from here to the commit.
    leaves = log_append(entries=list(ids.items()), accepted_at=received_at)
    if known:
        leaves.update(leaf_indexes(content_hashes=set(known)))
    answers, reported = [], set()
    for content_hash in hashes:
        duplicate = content_hash in known or content_hash in reported
        reported.add(content_hash)
        answers.append(
            Accepted(
                id=known.get(content_hash) or ids[content_hash],
                duplicate=duplicate,
                leaf_index=leaves.get(content_hash),
            )
        )
    return answers, sorted(ids.values())


def events_enqueue(*, event_ids: list[int]) -> None:
    """Hand stored events to the workers; if the broker is down the sweeper finds them later."""
    _task_send(APPLY_EVENTS_TASK, [event_ids])


def _task_send(name: str, args: list[Any]) -> None:
    try:
        celery_app.send_task(name, args=args)
    except Exception:  # the events are already durable: the sweeper (or beat's checkpoint) makes up for it
        logger.warning("broker unavailable; %s not sent", name)


# One of each per process (the publisher starts its thread on first use, so after any fork).
_publisher = Publisher(lambda event_ids: events_enqueue(event_ids=event_ids))
_committer: GroupCommitter[tuple[CheckedEvent, bytes, ApiToken | None], Accepted] = GroupCommitter(
    lambda rows: events_store(rows=rows)
)


def _record(event: LineageEvent) -> EventRecord:
    """The event as the graph sees it: without the facets its stored warnings name (invariant 8).

    Every apply, incremental or `rebuild_graph`, and every run fold reads events through here, so
    an invalid facet never reaches the projection, and the experimental `lineage` facet, when read, is read the
    same way by all. The content hash stays that of the event as sent.
    """
    payload = event.payload
    if event.facet_warnings:
        payload = payload_without(payload, (w["at"] for w in event.facet_warnings if w.get("at")))
    if settings.LINEAGE_FACET_ENABLED:
        payload = explicit_lineage_payload(payload)
    return EventRecord(content_hash=event.content_hash, event_time=event.event_time, payload=payload)


def _folds(run_ids: Iterable[str], extra: dict[str, list[EventRecord]]) -> dict[str, RunFold]:
    """Fold each run over its applied events plus `extra` (the batch being applied); a run with
    neither (its events pruned meanwhile) is left out."""
    logged: dict[str, list[EventRecord]] = defaultdict(list)
    for event in LineageEvent.objects.filter(run_id__in=list(run_ids), status__in=FOLDABLE):
        logged[event.run_id].append(_record(event))
    folded = {run_id: logged[run_id] + extra.get(run_id, []) for run_id in run_ids}
    return {run_id: run_fold(events) for run_id, events in folded.items() if events}


def run_folds(*, run_ids: Iterable[str]) -> dict[str, RunFold]:
    """Each run folded over its applied events (what its node should hold)."""
    return _folds(list(run_ids), {})


def _logged_confirmers(job_keys: Sequence[str], run_ids: Sequence[str]) -> tuple[list[EventRecord], list[RunFold]]:
    """The applied JobEvents of the jobs `job_keys` and the folds of the runs `run_ids`: what a confirmation a
    run takes back falls back on (`graph.withdrawal`). Rare, so the JobEvents are looked for by job name."""
    jobs = Q()
    for key in job_keys:
        namespace, name = key.split(KEY_SEPARATOR)
        jobs |= Q(job_namespace=namespace, job_name=name)
    declared = LineageEvent.objects.filter(jobs, kind=LineageEvent.Kind.JOB, status__in=FOLDABLE)
    return [_record(event) for event in declared], list(run_folds(run_ids=run_ids).values())


# The event types that end a run: the worker that marks one applied tells that the run ended.
ENDING_EVENT_TYPES = frozenset({EventType.COMPLETE, EventType.FAIL, EventType.ABORT})


def events_apply(*, event_ids: Sequence[int], publish: bool = True) -> int:
    """Apply logged events to the graph in one transaction; returns how many were applied.

    Once the graph holds them, the batch's change records go to their consumers (`lineage_app.changes`:
    ownership, alerts); a replay (`graph_rebuild`, `publish=False`) sends only the applied events.

    A run's node is written from the fold of all its applied events plus this batch. The batch is
    marked applied and its runs `fold_pending` in one statement; then any run whose applied set grew
    meanwhile (a concurrent worker) is folded again until none did, and only then is the run
    recorded as settled. A worker that dies between marking and settling leaves the runs on record:
    the task's retry (these `event_ids`, already applied) or the sweeper settles them.
    """
    events = list(LineageEvent.objects.filter(id__in=event_ids, status__in=LineageEvent.APPLYABLE))
    # Only events no longer waiting can be ones a dead worker marked and never settled.
    waiting = {e.id for e in events}
    unsettled = runs_fold_pending(event_ids=[i for i in event_ids if i not in waiting])
    # Signatures are checked before the graph is touched; an enforcing policy quarantines failures.
    checked = events
    verified = events_verify(events=events)
    EVENTS_QUARANTINED.inc(len(events) - len(verified))
    # Heartbeats are the ledger's alone (recorded by `events_verify`): marked applied, never projected.
    heartbeats = [e.id for e in verified if e.kind == LineageEvent.Kind.HEARTBEAT]
    if heartbeats:
        log_mark_applied(heartbeats, timezone.now())
    events = [e for e in verified if e.kind != LineageEvent.Kind.HEARTBEAT]
    if not events:
        if publish:
            changes_publish(change_records(checked=checked, applied=[], folds=[]))
        runs_settle(run_ids=unsettled)
        return 0
    batch = [_record(e) for e in events]
    by_run: dict[str, list[EventRecord]] = defaultdict(list)
    for event, record in zip(events, batch, strict=True):
        if event.run_id:
            by_run[event.run_id].append(record)
    folds = _folds(by_run, by_run)
    found = graph_writes_apply(
        graph_writes_for(batch, folds.values()),
        grace_for=stale_grace_policy(),
        confirmers_of=_logged_confirmers,
        inputs_new=publish and changes_wanted(NewConsumer),
    )
    # The graph's mirrors (ownership) follow every applied event, before the batch is marked: a worker that
    # dies in between sends them again on retry, and a mirror written twice is the same.
    changes_publish([EventsApplied(events=tuple(batch))])
    applied_at = timezone.now()
    marked = log_mark_applied([e.id for e in events], applied_at)
    events_applied_record(received=[e.received_at for e in events if e.id in marked], applied_at=applied_at)
    if publish:
        # What happened (a run ended, a schema changed...) is told once, by the worker that marked the events:
        # two workers that applied the same pending events at once would otherwise open two incidents for one
        # failure. A run's end goes with the worker that marked its ending event.
        mine = [(event, record) for event, record in zip(events, batch, strict=True) if event.id in marked]
        ended = {event.run_id for event, _ in mine if event.event_type in ENDING_EVENT_TYPES}
        changes_publish(
            change_records(
                checked=checked,
                applied=[record for _, record in mine],
                folds=[fold for run_id, fold in folds.items() if run_id in ended],
                new_versions=found.new_versions,
                new_inputs=found.new_inputs,
            )
        )
    _settle(folds)
    runs_settle(run_ids=[run_id for run_id in unsettled if run_id not in folds])
    return len(events)


def runs_settle(*, run_ids: Iterable[str]) -> int:
    """Write each run's node from the fold of all its applied events and record it settled; how many runs.

    What a worker that died after marking events applied left undone. Writing a fold twice changes
    nothing, so settling a run another worker is settling too is harmless.
    """
    folds = _folds(list(dict.fromkeys(run_ids)), {})
    if not folds:
        return 0
    writes = GraphWrites()
    writes_add_runs(writes, folds.values())
    graph_writes_apply(writes, grace_for=stale_grace_policy(), confirmers_of=_logged_confirmers)
    _settle(folds)
    RUNS_SETTLED_LATE.inc(len(folds))
    return len(folds)


def _runs_grown(folds: dict[str, RunFold]) -> list[str]:
    """The runs whose applied events are no longer those `folds` saw: one query of hashes, no payloads."""
    applied: dict[str, set[str]] = defaultdict(set)
    rows = LineageEvent.objects.filter(run_id__in=list(folds), status__in=FOLDABLE).values_list(
        "run_id", "content_hash"
    )
    for run_id, content_hash in rows:
        applied[run_id].add(content_hash)
    return [run_id for run_id, fold in folds.items() if applied[run_id] != fold.event_hashes]


def _settle(folds: dict[str, RunFold]) -> None:
    """After `folds` were written: fold again, and write, every run whose applied events changed
    meanwhile, until none did; then clear `fold_pending` on the events the written folds hold.

    The run node only takes a fold at least as large as the one it has (`MERGE_RUNS`), and the
    applied set only grows, so a slower worker's smaller fold, written late, cannot undo this.
    """
    for _ in range(REFOLD_ROUNDS):
        grown = _runs_grown(folds)
        current = _folds(grown, {})
        stale = {run_id: fold for run_id, fold in current.items() if fold.event_hashes != folds[run_id].event_hashes}
        if not stale:
            log_mark_folded(h for fold in folds.values() for h in fold.event_hashes)
            return
        writes = GraphWrites()
        writes_add_runs(writes, stale.values())
        graph_writes_apply(writes, grace_for=stale_grace_policy(), confirmers_of=_logged_confirmers)
        folds = {**folds, **stale}
    logger.warning("runs still changing after %d refolds; the sweeper will settle them", REFOLD_ROUNDS)


def events_reverify(*, event_ids: Sequence[int]) -> int:
    """Verify quarantined events again (say, once their key is registered) and apply those that pass.

    The rest go back to quarantine with the new reason. Returns how many were applied.
    """
    ids = list(
        LineageEvent.objects.filter(id__in=event_ids, status=LineageEvent.Status.QUARANTINED)
        .order_by("event_time", "id")
        .values_list("id", flat=True)
    )
    LineageEvent.objects.filter(id__in=ids).update(status=LineageEvent.Status.PENDING, status_reason="")
    size = settings.INGEST_APPLY_BATCH_SIZE
    return sum(events_apply(event_ids=ids[i : i + size]) for i in range(0, len(ids), size))


def events_mark_failed(*, event_ids: Sequence[int], reason: str) -> None:
    """Park events that cannot be applied (not a transient outage) with the reason shown."""
    failed = LineageEvent.objects.filter(id__in=event_ids, status__in=LineageEvent.APPLYABLE).update(
        status=LineageEvent.Status.FAILED, status_reason=reason[:2000]
    )
    EVENTS_FAILED.inc(failed)


def events_claim(*, event_ids: Sequence[int], claimant: str) -> list[int]:
    """Take those of `event_ids` still waiting that no other apply task holds, for `INGEST_CLAIM_SECONDS`;
    the ids now `claimant`'s (those it held already included: a task's retry keeps its events).

    One conditional UPDATE, so of two workers racing for an event one gets it: each applies a batch of its
    own instead of both applying the same oldest events. A claim that ran out is free to take again.
    """
    now = timezone.now()
    free = Q(claimed_until__isnull=True) | Q(claimed_until__lt=now) | Q(claimed_by=claimant)
    waiting = LineageEvent.objects.filter(id__in=list(event_ids), status__in=LineageEvent.APPLYABLE)
    waiting.filter(free).update(
        claimed_by=claimant, claimed_until=now + timedelta(seconds=settings.INGEST_CLAIM_SECONDS)
    )
    return list(waiting.filter(claimed_by=claimant).order_by("event_time", "id").values_list("id", flat=True))


def events_release(*, event_ids: Sequence[int], claimant: str) -> None:
    """Give up `claimant`'s claim on those of `event_ids` it holds (its task failed and waits to be retried)."""
    LineageEvent.objects.filter(id__in=list(event_ids), claimed_by=claimant).update(claimed_by="", claimed_until=None)


def events_count_attempt(*, event_ids: Sequence[int]) -> None:
    LineageEvent.objects.filter(id__in=event_ids).update(attempts=F("attempts") + 1)


def graph_rebuild(*, batch_size: int, progress: Callable[[int], object] = lambda n: None) -> int:
    """Wipe the graph and replay every non-quarantined event in eventTime order; returns the count.

    Runs are folded over all their replayable events at once, so the result is exactly what
    incremental application produced.
    """
    graph_wipe()
    graph_schema_init()
    replayable = LineageEvent.objects.exclude(status=LineageEvent.Status.QUARANTINED)
    replayable.update(status=LineageEvent.Status.PENDING, status_reason="", applied_at=None)
    ids = list(replayable.order_by("event_time", "id").values_list("id", flat=True))
    for start in range(0, len(ids), batch_size):
        chunk = ids[start : start + batch_size]
        events_apply(event_ids=chunk, publish=False)
        progress(len(chunk))
    changes_publish([GraphRebuilt()])  # hand-set owners live in the database, not the event log
    return len(ids)


def events_prune(*, older_than_days: int, batch_size: int, dry_run: bool = False) -> int:
    """Delete applied events received more than `older_than_days` ago, `batch_size` rows per
    transaction; returns how many (with `dry_run`, how many would go, deleting nothing).

    Their leaves in the transparency log are kept and marked by a signed prune record (`leaves_prune`).
    Pending, failed and quarantined events are never pruned, nor any event of a run that still has
    one of those or a recent event (`prunable_events`). The graph is not touched: it keeps what
    the pruned events built, though `rebuild_graph` can rebuild only what the log still holds.
    """
    cutoff = timezone.now() - timedelta(days=older_than_days)
    if dry_run:
        return prunable_events(received_before=cutoff).count()
    pruned = 0
    while ids := list(prunable_events(received_before=cutoff).values_list("id", flat=True)[:batch_size]):
        with transaction.atomic():
            # The leaves stay, marked by a signed prune record, so proofs made before still verify.
            leaves_prune(event_ids=ids)
            pruned += LineageEvent.objects.filter(id__in=ids, status=LineageEvent.Status.APPLIED).delete()[0]
    return pruned
