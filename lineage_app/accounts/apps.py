"""Django app config for API tokens, roles and access rules."""

from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "lineage_app.accounts"
    label = "accounts"
