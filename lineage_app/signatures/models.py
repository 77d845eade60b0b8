"""Producer public keys (rotation, revocation, namespace scope) and per-namespace signature policies."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models

from lineage_app.namespace_policy import NamespacePolicy
from lineage_protocol import VerificationStatus, load_public_key
from lineage_protocol import key_id as signing_key_id


def pem_key_id(pem: str) -> str:
    """The key id of an Ed25519 public key PEM; `ValidationError` if the text is anything else."""
    text = (pem or "").strip()
    if not text.startswith("-----BEGIN PUBLIC KEY-----"):
        raise ValidationError("Paste an Ed25519 public key in PEM form (-----BEGIN PUBLIC KEY-----).")
    try:
        return signing_key_id(load_public_key(text))
    except (ValueError, TypeError) as exc:
        raise ValidationError(f"Not an Ed25519 public key PEM: {exc}") from None


class ProducerKey(models.Model):
    """One Ed25519 public key of a producer; a producer may have several active at once (rotation)."""

    producer = models.CharField(max_length=200, db_index=True, help_text="Who holds the private key.")
    public_key = models.TextField(help_text="Ed25519 public key, SubjectPublicKeyInfo PEM.")
    key_id = models.CharField(max_length=41, unique=True, editable=False, help_text="Computed from the PEM.")
    allowed_namespaces = models.TextField(
        blank=True, help_text="Namespaces this key may sign for, one per line (exact match). Empty: any."
    )
    active_from = models.DateTimeField(
        null=True, blank=True, help_text="Events whose eventTime is earlier do not verify. Empty: always."
    )
    retired_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Rotation: events whose eventTime is before this still verify, later ones do not.",
    )
    revoked_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Compromise: every event received after this fails, whatever eventTime it claims.",
    )
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["producer", "-created_at"]

    def __str__(self) -> str:
        return f"{self.producer} {self.key_id}"

    @property
    def namespaces(self) -> set[str]:
        return {line.strip() for line in self.allowed_namespaces.splitlines() if line.strip()}

    def clean(self) -> None:
        try:
            self.key_id = pem_key_id(self.public_key)
        except ValidationError as exc:
            raise ValidationError({"public_key": exc.messages}) from None
        if ProducerKey.objects.filter(key_id=self.key_id).exclude(pk=self.pk).exists():
            raise ValidationError({"public_key": f"This key ({self.key_id}) is already registered."})

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.public_key = self.public_key.strip() + "\n"
        self.key_id = pem_key_id(self.public_key)
        super().save(*args, **kwargs)

    def state_at(self, moment: datetime) -> str:
        """`revoked`, `retired` or `active`, as of `moment` (for the admin list)."""
        if self.revoked_at and moment >= self.revoked_at:
            return "revoked"
        if self.retired_at and moment >= self.retired_at:
            return "retired"
        return "active"


class SignaturePolicy(NamespacePolicy):
    """What an unverified event of one namespace does; namespaces without a row use the default."""

    class Mode(models.TextChoices):
        OFF = "off", "Off: apply, record the status"
        WARN = "warn", "Warn: apply, flag anything not verified"
        ENFORCE = "enforce", "Enforce: quarantine anything not verified"

    mode = models.CharField(max_length=8, choices=Mode.choices)

    class Meta(NamespacePolicy.Meta):
        verbose_name_plural = "signature policies"


# The event log's verification column: the protocol's statuses, with the labels the admin shows.
VERIFICATION_LABELS: dict[VerificationStatus, str] = {
    VerificationStatus.VERIFIED: "Verified",
    VerificationStatus.UNSIGNED: "Unsigned",
    VerificationStatus.INVALID_SIGNATURE: "Invalid signature",
    VerificationStatus.UNKNOWN_KEY: "Unknown key",
    VerificationStatus.REVOKED_KEY: "Revoked key",
    VerificationStatus.RETIRED_KEY: "Retired key",
    VerificationStatus.NAMESPACE_NOT_ALLOWED: "Namespace not allowed for the key",
}
VERIFICATION_CHOICES = [(status.value, VERIFICATION_LABELS[status]) for status in VerificationStatus]
