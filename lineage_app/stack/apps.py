"""Django app config for the local stack runner."""

from __future__ import annotations

from django.apps import AppConfig


class StackConfig(AppConfig):
    name = "lineage_app.stack"
    label = "stack"
