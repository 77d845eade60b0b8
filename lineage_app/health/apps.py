"""Django app config for the health check."""

from __future__ import annotations

from django.apps import AppConfig


class HealthConfig(AppConfig):
    name = "lineage_app.health"
    label = "health"
