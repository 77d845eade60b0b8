"""Django app config for the warm-up after the graph engine starts (`manage.py warm_graph`)."""

from __future__ import annotations

from django.apps import AppConfig


class WarmupConfig(AppConfig):
    name = "lineage_app.warmup"
    label = "warmup"
