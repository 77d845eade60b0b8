"""Django app config for producer keys, signature policies and server-side verification."""

from __future__ import annotations

from django.apps import AppConfig


class SignaturesConfig(AppConfig):
    name = "lineage_app.signatures"
    label = "signatures"
    verbose_name = "Signatures"
