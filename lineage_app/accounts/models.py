"""API tokens: bearer credentials stored only as a hash, each with one scope."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    class Scope(models.TextChoices):
        INGEST = "ingest", "Ingest lineage events"
        READ = "read", "Read the lineage API"

    name = models.CharField(max_length=100, help_text="Who or what uses this token.")
    scope = models.CharField(max_length=10, choices=Scope.choices)
    prefix = models.CharField(max_length=12, unique=True, editable=False)
    digest = models.CharField(max_length=64, editable=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.scope}, {self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
