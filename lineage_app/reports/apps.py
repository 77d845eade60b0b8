"""Django app config for impact analysis and its reports."""

from __future__ import annotations

from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "lineage_app.reports"
    label = "reports"
