"""Django app config for the durable event log and the ingestion pipeline."""

from __future__ import annotations

from django.apps import AppConfig


class IngestConfig(AppConfig):
    name = "lineage_app.ingest"
    label = "ingest"
