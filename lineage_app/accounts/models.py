"""API tokens: bearer credentials stored only as a hash, each with one scope and, if set, a rate limit of its own."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from lineage_app.rate_limits import rate_limit_parse


def rate_limit_validate(value: str) -> None:
    try:
        rate_limit_parse(value)
    except ValueError as exc:
        raise ValidationError(str(exc)) from None


class ApiToken(models.Model):
    class Scope(models.TextChoices):
        INGEST = "ingest", "Ingest lineage events"
        READ = "read", "Read the lineage API"
        ADMIN = "admin", "Administer: read, and manage alert rules, destinations and routes"

    name = models.CharField(max_length=100, help_text="Who or what uses this token.")
    scope = models.CharField(max_length=10, choices=Scope.choices)
    prefix = models.CharField(max_length=12, unique=True, editable=False)
    digest = models.CharField(max_length=64, editable=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # Null, not "", means no limit of its own: the scope's applies.
    rate_limit = models.CharField(
        max_length=50,
        null=True,
        blank=True,
        validators=[rate_limit_validate],
        help_text="Requests this token may make, e.g. 600/minute or 20/second, or unlimited. "
        "Empty: its scope's limit (API_RATE_LIMIT_INGEST / API_RATE_LIMIT_READ).",
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.scope}, {self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
