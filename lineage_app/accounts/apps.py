"""Django app config for API tokens, roles, access rules and sign-in lockouts."""

from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "lineage_app.accounts"
    label = "accounts"

    def ready(self) -> None:
        from lineage_app.accounts import lockout, token_cache  # noqa: F401  (connect their signal receivers)
