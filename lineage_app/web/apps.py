"""Django app config for the web UI."""

from __future__ import annotations

from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "lineage_app.web"
    label = "web"
