"""Django app config for API tokens, roles and access rules."""

from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "lineage_app.accounts"
    label = "accounts"

    def ready(self) -> None:
        from lineage_app.accounts import token_cache  # noqa: F401  (connects the cache's signal receivers)
