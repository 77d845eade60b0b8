"""The shape every per-namespace policy row shares (signatures, facets): one mode per namespace."""

from __future__ import annotations

from django.db import models


class NamespacePolicy(models.Model):
    """A mode for one namespace's events; namespaces without a row use the setting's default.
    Subclasses declare `mode` with their own choices."""

    namespace = models.CharField(
        max_length=500, unique=True, help_text="Job namespace (dataset namespace for DatasetEvents), exact match."
    )
    mode: models.CharField

    class Meta:
        abstract = True
        ordering = ["namespace"]

    def __str__(self) -> str:
        return f"{self.namespace}: {self.mode}"
