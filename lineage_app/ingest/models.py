"""The durable event log (every accepted OpenLineage event, byte for byte, with its processing state)
and the per-namespace facet policies."""

from __future__ import annotations

from django.core.validators import MinValueValidator
from django.db import models
from django.utils import timezone

from lineage_app.namespace_policy import NamespacePolicy
from lineage_app.signatures.models import VERIFICATION_CHOICES


class LineageEvent(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        APPLIED = "applied", "Applied to the graph"
        QUARANTINED = "quarantined", "Quarantined"
        FAILED = "failed", "Failed"

    class Kind(models.TextChoices):
        RUN = "run", "RunEvent"
        DATASET = "dataset", "DatasetEvent"
        JOB = "job", "JobEvent"
        HEARTBEAT = "heartbeat", "Heartbeat"

    # Statuses of events a worker may (still) apply: pending, or failed and sent again.
    APPLYABLE = (Status.PENDING, Status.FAILED)

    content_hash = models.CharField(
        max_length=64, unique=True, help_text="SHA-256 of the event's RFC 8785 canonical form."
    )
    raw = models.BinaryField(help_text="The event exactly as it was received.")
    payload = models.JSONField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    event_type = models.CharField(max_length=10, blank=True)
    event_time = models.DateTimeField(db_index=True)
    run_id = models.CharField(max_length=36, blank=True, db_index=True)
    job_namespace = models.TextField(blank=True)
    job_name = models.TextField(blank=True)
    received_at = models.DateTimeField(default=timezone.now, db_index=True)
    token = models.ForeignKey("accounts.ApiToken", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING, db_index=True)
    status_reason = models.TextField(blank=True)
    verification = models.CharField(max_length=24, choices=VERIFICATION_CHOICES, blank=True, db_index=True)
    attempts = models.PositiveIntegerField(default=0)
    applied_at = models.DateTimeField(null=True, blank=True)
    facet_warnings = models.JSONField(
        null=True,
        blank=True,
        help_text="Facets that failed their schema: [{path, message, at}]; the event is applied without them.",
    )
    # Set with `applied` in one statement, cleared once the run's node was written from a fold that
    # holds this event and no applied event of the run was missing from it: what a worker that died
    # in between left undone, a retry or the sweeper finds here (`ingest.services.runs_settle`).
    fold_pending = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Applied, but its run's node may not yet reflect it (a worker stopped before re-folding the run).",
    )

    # The apply task that took the event, and until when: concurrent workers each apply events of their own
    # (`ingest.services.events_claim`) instead of all filling their batches with the same oldest ones.
    claimed_by = models.CharField(max_length=64, blank=True, default="", db_default="")
    claimed_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["event_time", "id"]
        indexes = [
            models.Index(fields=["status", "received_at"]),
            models.Index(fields=["run_id"], condition=models.Q(fold_pending=True), name="ingest_event_fold_pending"),
        ]

    @property
    def policy_namespace(self) -> str:
        """The namespace keys and policies are matched against: the job's, or the dataset's for a DatasetEvent."""
        if self.kind == self.Kind.DATASET:
            dataset = self.payload.get("dataset") or {}
            return str(dataset.get("namespace", ""))
        return self.job_namespace

    def __str__(self) -> str:
        subject = self.run_id or f"{self.job_namespace}:{self.job_name}"
        return f"{self.kind} {self.event_type} {subject} @ {self.event_time:%Y-%m-%d %H:%M:%S}"


class FacetPolicy(NamespacePolicy):
    """What an invalid facet in one namespace's events does; namespaces without a row use `FACET_POLICY`."""

    class Mode(models.TextChoices):
        TOLERANT = "tolerant", "Tolerant: store and apply the event without the facet, answer a warning"
        STRICT = "strict", "Strict: refuse the event (400), store nothing"

    mode = models.CharField(max_length=8, choices=Mode.choices)

    class Meta(NamespacePolicy.Meta):
        verbose_name_plural = "facet policies"


class StaleGrace(models.Model):
    """How long the edges of one job namespace's jobs stay current once their runs leave them out (a
    weekly lookup, a conditional branch); namespaces without a row use `LINEAGE_STALE_AFTER_RUNS` and
    `LINEAGE_STALE_AFTER_DAYS` (docs/time.md)."""

    namespace = models.CharField(max_length=500, unique=True, help_text="Job namespace, exact match.")
    after_runs = models.PositiveIntegerField(
        default=1,
        validators=[MinValueValidator(1)],
        help_text="Completed runs that must leave an edge out before it turns stale.",
    )
    after_days = models.FloatField(
        default=0,
        validators=[MinValueValidator(0)],
        help_text="And the days that must have passed since the edge was last seen.",
    )

    class Meta:
        ordering = ["namespace"]
        verbose_name = "stale-edge grace"

    def __str__(self) -> str:
        return f"{self.namespace}: {self.after_runs} run(s), {self.after_days:g} day(s)"


class GraphCheck(models.Model):
    """One sampled check of the graph against the event log: runs whose node differs from the fold of
    their logged events (`ingest.consistency.runs_check`); the newest is what `/metrics` reports."""

    checked_at = models.DateTimeField(default=timezone.now, db_index=True)
    runs_checked = models.PositiveIntegerField()
    runs_differing = models.PositiveIntegerField()
    runs_repaired = models.PositiveIntegerField(default=0)
    differences = models.JSONField(default=list, help_text="[{runId, property, graph, log}], the first few.")

    class Meta:
        ordering = ["-checked_at"]
        get_latest_by = "checked_at"

    def __str__(self) -> str:
        return f"{self.runs_differing} of {self.runs_checked} runs differ @ {self.checked_at:%Y-%m-%d %H:%M:%S}"
