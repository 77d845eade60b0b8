"""Alert rules, incidents (with the assets they cover and their timeline), routes and subscriptions."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from lineage_app.notify.models import Destination
from lineage_app.ownership.models import Owner


class Rule(models.Model):
    """One trigger, switched on or off, scoped to namespaces and / or owners (empty: everything)."""

    class Kind(models.TextChoices):
        RUN_FAILED = "run_failed", "A run failed or was aborted"
        RECOVERED = "recovered", "The job completed again: its incident resolves itself"
        SCHEMA_BREAKING = "schema_breaking", "A column removed, renamed or retyped where consumers read it"
        DATASET_DROPPED = "dataset_dropped", "A dataset with downstream consumers was dropped"
        VERIFICATION = "verification", "An event's signature did not verify"
        DEADLINE_MISSED = "deadline_missed", "A job with a regular cadence has not completed when due"
        STREAM_STALLED = "stream_stalled", "A running streaming query stopped reporting progress"
        NEW_CONSUMER = "new_consumer", "A job started reading a dataset it never read before (off by default)"

    kind = models.CharField(max_length=20, choices=Kind.choices, unique=True)
    enabled = models.BooleanField(default=True)
    namespaces = models.JSONField(default=list, blank=True, help_text="Only these namespaces; empty: all.")
    owners = models.JSONField(default=list, blank=True, help_text="Only assets these owners own; empty: all.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["kind"]

    def __str__(self) -> str:
        return f"{self.kind} ({'on' if self.enabled else 'off'})"


class Incident(models.Model):
    class State(models.TextChoices):
        OPEN = "open", "Open"
        ACKNOWLEDGED = "acknowledged", "Acknowledged"
        RESOLVED = "resolved", "Resolved"

    kind = models.CharField(max_length=20, choices=Rule.Kind.choices)
    state = models.CharField(max_length=12, choices=State.choices, default=State.OPEN, db_index=True)
    # The root cause's node id (`job:<ns>:<name>`, `dataset:<ns>:<name>`): one open incident per kind and root.
    root = models.TextField(db_index=True)
    title = models.TextField()
    cause = models.TextField(blank=True)
    classification = models.CharField(max_length=40, blank=True)
    run_id = models.CharField(max_length=36, blank=True)
    # {"datasets": [...], "jobs": [...], "fields": [...], "owners": [...], "counts": {...}, "depth": n}
    blast_radius = models.JSONField(default=dict)
    verification = models.JSONField(default=dict, help_text="Signature statuses of the events behind it: counts.")
    owners = models.JSONField(default=list, help_text="Every owner told (or to be told), deduplicated.")
    occurrences = models.PositiveIntegerField(default=1)
    opened_at = models.DateTimeField()
    last_seen_at = models.DateTimeField()
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    acknowledged_by = models.CharField(max_length=150, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.CharField(max_length=150, blank=True)

    class Meta:
        ordering = ["-last_seen_at", "-id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.title} ({self.state})"


class IncidentAsset(models.Model):
    """A node an incident covers (its root, jobs that failed with it, its blast radius): a failure of one
    of these while the incident is open attaches to it instead of opening another."""

    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="assets")
    node_id = models.TextField(db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["incident", "node_id"], name="alerts_asset_once")]


class IncidentEvent(models.Model):
    """The timeline: what happened to an incident, and who was told."""

    class Kind(models.TextChoices):
        OPENED = "opened", "Opened"
        REPEATED = "repeated", "Repeated"
        ATTACHED = "attached", "A downstream failure attached"
        NOTIFIED = "notified", "Notified"
        ACKNOWLEDGED = "acknowledged", "Acknowledged"
        RESOLVED = "resolved", "Resolved"

    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="timeline")
    at = models.DateTimeField()
    kind = models.CharField(max_length=12, choices=Kind.choices)
    text = models.TextField()
    actor = models.CharField(max_length=150, blank=True)
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["at", "id"]


class Route(models.Model):
    """Messages for an owner (a team or a person, or a subscriber's name) go to a destination."""

    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="+")
    destination = models.ForeignKey(Destination, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["owner__name", "destination_id"]
        constraints = [models.UniqueConstraint(fields=["owner", "destination"], name="alerts_route_once")]


class Subscription(models.Model):
    """A user's (or, for a team, its member's) wish to hear of incidents touching a dataset, job or namespace."""

    class TargetType(models.TextChoices):
        DATASET = "dataset", "Dataset"
        JOB = "job", "Job"
        NAMESPACE = "namespace", "Namespace"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # Who hears: an owner name with a route (`user:alice`, `team:payments`).
    subscriber = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="+")
    target_type = models.CharField(max_length=10, choices=TargetType.choices)
    namespace = models.TextField()
    name = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["subscriber", "target_type", "namespace", "name"], name="alerts_subscription_once"
            )
        ]


class Deadline(models.Model):
    """A job's declared deadline, which overrides the cadence learned from its runs: completed by
    `expected_by` (UTC) every day, or within `every_minutes` of its last completion; plus a grace."""

    job_namespace = models.TextField()
    job_name = models.TextField()
    expected_by = models.TimeField(null=True, blank=True, help_text="Completed by this time (UTC) every day.")
    every_minutes = models.PositiveIntegerField(null=True, blank=True, help_text="Or completed this often.")
    grace_minutes = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["job_namespace", "job_name"]
        constraints = [models.UniqueConstraint(fields=["job_namespace", "job_name"], name="alerts_deadline_once")]

    def __str__(self) -> str:
        return f"{self.job_namespace}/{self.job_name}"


class LedgerReported(models.Model):
    """A ledger gap or fork an incident was opened or updated for, so that the beat names it once: a gap
    by when it was noticed (a gap partly filled keeps it), a fork by its seq."""

    stream = models.CharField(max_length=200)
    problem = models.CharField(max_length=4)  # "gap" or "fork"
    mark = models.CharField(max_length=40)
    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["stream", "problem", "mark"], name="alerts_ledger_once")]


# Rules off until an admin switches them on (noisy: every first read of a new job is one).
OFF_BY_DEFAULT = frozenset({Rule.Kind.NEW_CONSUMER})

# The API's enums (`ENUM_NAME_OVERRIDES` names them by these).
RULE_KINDS = tuple(Rule.Kind.values)
INCIDENT_STATES = tuple(Incident.State.values)
INCIDENT_EVENT_KINDS = tuple(IncidentEvent.Kind.values)
