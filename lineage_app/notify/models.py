"""Destinations messages go to, and the outbox of deliveries to them (one row per message and destination)."""

from __future__ import annotations

from django.db import models


class Destination(models.Model):
    class Kind(models.TextChoices):
        EMAIL = "email", "Email"
        SLACK = "slack", "Slack incoming webhook"
        TEAMS = "teams", "Microsoft Teams webhook"
        WEBHOOK = "webhook", "Generic JSON webhook (HMAC-SHA256 signed)"

    name = models.CharField(max_length=200, unique=True)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    # A webhook's URL (slack, teams, webhook) or a mailbox (email); the other one stays blank.
    url = models.URLField(max_length=2000, blank=True)
    email = models.EmailField(blank=True)
    # Write-only: signs generic webhooks. Never answered by the API nor shown on a page.
    secret = models.CharField(max_length=500, blank=True)
    enabled = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"


class Delivery(models.Model):
    """One message to one destination; delivered at most once whatever the retries or workers."""

    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        SENDING = "sending", "Being sent by a worker"
        SENT = "sent", "Sent"
        DEAD = "dead", "Dead-lettered"

    destination = models.ForeignKey(Destination, on_delete=models.CASCADE, related_name="deliveries")
    idempotency_key = models.CharField(max_length=200)
    # `Message.to_json()`: the message as it was when enqueued, rendered per kind when sent.
    message = models.JSONField()
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    next_attempt_at = models.DateTimeField()
    # When a worker claimed it (state `sending`): a claim older than the lease is a worker that died.
    claimed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["destination", "idempotency_key"], name="notify_delivery_once_per_key")
        ]
        indexes = [
            models.Index(fields=["state", "next_attempt_at"], name="notify_delivery_due"),
            models.Index(fields=["idempotency_key"], name="notify_delivery_key"),
        ]

    def __str__(self) -> str:
        return f"{self.idempotency_key} → {self.destination_id} ({self.state})"


# The choice sets by value, for the API schema's enum names (SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]).
DESTINATION_KINDS = tuple(Destination.Kind.values)
DELIVERY_STATES = tuple(Delivery.State.values)
