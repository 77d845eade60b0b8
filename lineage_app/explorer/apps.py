"""Django app config for the explorer: the read API over the lineage graph (lineage, datasets, jobs, runs, failures)."""

from __future__ import annotations

from django.apps import AppConfig


class ExplorerConfig(AppConfig):
    name = "lineage_app.explorer"
    label = "explorer"
