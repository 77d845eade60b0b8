"""Django app config for the ledger: per-producer chains, their heartbeats and each stream's state."""

from __future__ import annotations

from django.apps import AppConfig


class LedgerConfig(AppConfig):
    name = "lineage_app.ledger"
    label = "ledger"
    verbose_name = "Ledger"
