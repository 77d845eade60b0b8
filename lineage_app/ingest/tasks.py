"""Celery tasks: apply logged events to the graph, sweep up events nobody enqueued and runs nobody
settled, prune old applied ones, checkpoint the transparency log."""

from __future__ import annotations

import logging
import uuid

from celery import Task, shared_task
from django.conf import settings
from django.db import OperationalError

from lineage_app.graph.driver import GRAPH_UNAVAILABLE
from lineage_app.ingest import services
from lineage_app.ingest.consistency import runs_check
from lineage_app.ingest.log_check import LogMismatch, log_check
from lineage_app.ingest.selectors import applyable_event_ids, pending_event_ids, runs_unsettled
from lineage_app.ledger.checkpoints import checkpoint_sign
from lineage_app.observability.logs import log_fields_add

logger = logging.getLogger(__name__)

# The graph engine or the database is down or busy: the same events apply once it is back.
TRANSIENT = (*GRAPH_UNAVAILABLE, OSError, OperationalError)


@shared_task(
    name=services.APPLY_EVENTS_TASK,
    bind=True,
    acks_late=True,
    autoretry_for=TRANSIENT,
    retry_backoff=2,
    retry_backoff_max=settings.INGEST_RETRY_BACKOFF_MAX_SECONDS,
    retry_jitter=True,
    max_retries=None,
)
def apply_events(self: Task, event_ids: list[int]) -> int:
    """Apply `event_ids`, plus other waiting events to fill the batch, in UNWIND batches.

    Under load messages pile up (each web process sends one per 100 ms); the first task takes
    every pending event it can in one batch and the later ones find theirs already applied: two
    reads, no write. Concurrent workers each claim the events they apply (`services.events_claim`), so
    each fills its batch with waiting events no other holds. A batch that fails for a non-transient
    reason is split to isolate the bad event.
    """
    size = settings.INGEST_APPLY_BATCH_SIZE
    waiting = pending_event_ids(older_than_seconds=0, limit=size, unclaimed=True)
    ids = list(dict.fromkeys([*applyable_event_ids(event_ids=event_ids), *waiting]))
    # A retry of this task (the same id) may take its events again; a task run directly (tests, a shell) has no id.
    claimant = self.request.id or f"direct-{uuid.uuid4()}"
    if ids:
        ids = services.events_claim(event_ids=ids, claimant=claimant)
    log_fields_add(event_ids=ids)
    if not ids:
        return 0
    try:
        services.events_count_attempt(event_ids=ids)
        return sum(_apply_isolating(ids[i : i + size]) for i in range(0, len(ids), size))
    except TRANSIENT:
        # Retried after a back-off of up to INGEST_RETRY_BACKOFF_MAX_SECONDS: until then another worker may
        # apply these events, rather than leave them held by a task that is waiting.
        _release_quietly(ids, claimant)
        raise


def _release_quietly(event_ids: list[int], claimant: str) -> None:
    """Give up a failed task's claim; if the database is what failed, the claim runs out by itself."""
    try:
        services.events_release(event_ids=event_ids, claimant=claimant)
    except TRANSIENT:
        logger.warning("could not release %d claimed event(s); their claim runs out by itself", len(event_ids))


def _apply_isolating(event_ids: list[int]) -> int:
    try:
        return services.events_apply(event_ids=event_ids)
    except TRANSIENT:
        raise
    except Exception as exc:
        if len(event_ids) == 1:
            logger.exception("event %s cannot be applied", event_ids[0])
            services.events_mark_failed(event_ids=event_ids, reason=f"{type(exc).__name__}: {exc}")
            return 0
        middle = len(event_ids) // 2
        return _apply_isolating(event_ids[:middle]) + _apply_isolating(event_ids[middle:])


@shared_task
def sweep_pending_events() -> int:
    """Re-enqueue events stored but never applied (the broker was down when they arrived)."""
    ids = pending_event_ids(
        older_than_seconds=settings.INGEST_SWEEP_MIN_AGE_SECONDS, limit=10 * settings.INGEST_APPLY_BATCH_SIZE
    )
    size = settings.INGEST_APPLY_BATCH_SIZE
    for start in range(0, len(ids), size):
        apply_events.delay(ids[start : start + size])
    if ids:
        logger.info("sweeper re-enqueued %d pending event(s)", len(ids))
    return len(ids)


@shared_task(autoretry_for=TRANSIENT, retry_backoff=2, max_retries=3)
def settle_unfolded_runs() -> int:
    """Re-fold the runs whose events a worker marked applied but never settled (it died in between)."""
    run_ids = runs_unsettled(
        older_than_seconds=settings.INGEST_SWEEP_MIN_AGE_SECONDS, limit=settings.INGEST_APPLY_BATCH_SIZE
    )
    settled = services.runs_settle(run_ids=run_ids)
    if settled:
        logger.warning("sweeper settled %d run(s) a worker left half-folded", settled)
    return settled


@shared_task
def check_graph() -> int:
    """Compare a sample of recently applied runs with their events' fold (beat); how many differ.
    A difference is logged and reported in `/metrics`; repairing is an operator's call (`verify_graph`)."""
    check = runs_check(sample=settings.GRAPH_CHECK_SAMPLE)
    if check.runs_differing:
        logger.error(
            "%d of %d run(s) differ from their logged events: %s",
            check.runs_differing,
            check.runs_checked,
            check.differences[:3],
        )
    return check.runs_differing


@shared_task
def prune_applied_events() -> int:
    """Delete applied events older than `EVENT_RETENTION_DAYS` (beat, daily); 0 keeps the log forever."""
    if settings.EVENT_RETENTION_DAYS <= 0:
        return 0
    pruned = services.events_prune(
        older_than_days=settings.EVENT_RETENTION_DAYS, batch_size=settings.EVENT_PRUNE_BATCH_SIZE
    )
    if pruned:
        logger.info("retention pruned %d applied event(s)", pruned)
    return pruned


@shared_task(name=services.CHECKPOINT_LOG_TASK)
def checkpoint_log() -> int:
    """Check the leaves against the event log, then sign a checkpoint if the log grew (beat, every
    `LEDGER_CHECKPOINT_SECONDS`, and whenever `LEDGER_CHECKPOINT_EVENTS` more were accepted); the tree size.

    The checkpoint is signed even when the check fails: the leaves are intact and are the evidence of
    what was deleted. The task then fails loudly (`LogMismatch`, logged, counted in `/metrics`)."""
    try:
        log_check(full=False)
    except LogMismatch:
        logger.exception("transparency log check failed")
        checkpoint_sign()
        raise
    checkpoint = checkpoint_sign()
    return checkpoint.size if checkpoint else 0
