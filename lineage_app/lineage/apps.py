"""Django app config for the lineage read API."""

from __future__ import annotations

from django.apps import AppConfig


class LineageConfig(AppConfig):
    name = "lineage_app.lineage"
    label = "lineage"
