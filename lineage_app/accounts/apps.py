"""Django app config for API tokens, roles and access rules."""

from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "lineage_app.accounts"
    label = "accounts"

    def ready(self) -> None:
        # `django.contrib.admin` comes first in INSTALLED_APPS, so its autodiscovery has
        # imported every app's admin.py by now.
        from lineage_app.accounts.admin_roles import admin_only_models_restrict

        admin_only_models_restrict()
