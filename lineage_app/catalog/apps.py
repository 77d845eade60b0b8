"""Django app config for ownership: owners, teams and their assignments to namespaces, datasets and jobs."""

from __future__ import annotations

from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "lineage_app.catalog"
    label = "catalog"
    verbose_name = "Ownership"
