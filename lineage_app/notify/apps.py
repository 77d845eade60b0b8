"""Django app config for notify: destinations and the delivery outbox."""

from __future__ import annotations

from django.apps import AppConfig


class NotifyConfig(AppConfig):
    name = "lineage_app.notify"
    verbose_name = "Notifications"
