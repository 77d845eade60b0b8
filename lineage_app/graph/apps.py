"""Django app config for the graph-access package."""

from __future__ import annotations

from django.apps import AppConfig


class GraphConfig(AppConfig):
    name = "lineage_app.graph"
    label = "graph"
