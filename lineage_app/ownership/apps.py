"""Django app config for ownership: owners, teams and their assignments to namespaces, datasets and jobs."""

from __future__ import annotations

from django.apps import AppConfig


class OwnershipConfig(AppConfig):
    name = "lineage_app.ownership"
    # The app was called `catalog` when its tables were made; the label keeps their names and migration history.
    label = "catalog"
    verbose_name = "Ownership"
