"""Django app config for alerts: rules, incidents, routes and subscriptions, fed by apply's change records."""

from __future__ import annotations

from django.apps import AppConfig


class AlertsConfig(AppConfig):
    name = "lineage_app.alerts"
    verbose_name = "Alerts"

    def ready(self) -> None:
        from django.conf import settings

        if not settings.ALERTS_ENABLED:
            return
        from lineage_app.alerts.services import ALERT_RECORDS, alerts_consume, alerts_want
        from lineage_app.changes import consumer_register

        consumer_register(name="alerts", consumer=alerts_consume, kinds=ALERT_RECORDS, wanted=alerts_want)
