"""Owners (people and teams) and their assignments to namespaces, datasets and jobs, hand-set or from events."""

from __future__ import annotations

from django.db import models

from lineage_app.graph.model import OWNED_TARGETS, OwnerKind


class Owner(models.Model):
    class Kind(models.TextChoices):
        # The graph's vocabulary (`OwnerKind`) with the labels forms show; the type stubs have no functional form.
        PERSON = OwnerKind.PERSON.value, "Person"
        TEAM = OwnerKind.TEAM.value, "Team"

    name = models.CharField(max_length=200, unique=True)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.TEAM)
    email = models.EmailField(blank=True)
    channel = models.CharField(max_length=200, blank=True, help_text="Chat channel, e.g. #data-platform.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def contact(self) -> str:
        """What the graph's `Owner.contact` holds: e-mail and channel, whichever are set."""
        return ", ".join(part for part in (self.email, self.channel) if part)


class OwnershipAssignment(models.Model):
    # The graph's owned targets: `namespace` / `dataset` / `job`, labelled by their node label. The
    # stubs type only the class form of `TextChoices`, not this functional one.
    TargetType = models.TextChoices(  # type: ignore[call-overload]
        "TargetType", {label.name: (target, label.value) for target, label in OWNED_TARGETS.items()}
    )

    class Role(models.TextChoices):
        OWNER = "owner", "Owner"
        STEWARD = "steward", "Steward"
        ON_CALL = "on-call", "On call"

    class Source(models.TextChoices):
        MANUAL = "manual", "Set by hand"
        EVENT = "event", "From events"

    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="assignments")
    target_type = models.CharField(max_length=10, choices=TargetType.choices)
    namespace = models.CharField(max_length=500)
    name = models.CharField(max_length=1000, blank=True, help_text="Blank for a namespace.")
    # Hand-set roles are one of `Role`; event-sourced ones keep the facet's type (e.g. MAINTAINER).
    role = models.CharField(max_length=50, default=Role.OWNER)
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.MANUAL)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["target_type", "namespace", "name", "role", "owner__name"]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "target_type", "namespace", "name", "role", "source"],
                name="catalog_assignment_unique",
            ),
        ]
        indexes = [models.Index(fields=["namespace", "name"], name="catalog_assignment_target")]

    def __str__(self) -> str:
        target = self.namespace if self.target_type == self.TargetType.NAMESPACE else f"{self.namespace}:{self.name}"
        return f"{self.owner} is {self.role} of {self.target_type} {target} ({self.source})"
