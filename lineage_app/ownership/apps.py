"""Django app config for ownership: owners, teams and their assignments to namespaces, datasets and jobs."""

from __future__ import annotations

from django.apps import AppConfig


class OwnershipConfig(AppConfig):
    name = "lineage_app.ownership"
    # The app was called `catalog` when its tables were made; the label keeps their names and migration history.
    label = "catalog"
    verbose_name = "Ownership"

    def ready(self) -> None:
        from lineage_app.changes import EventsApplied, GraphRebuilt, consumer_register
        from lineage_app.ownership.services import ownership_consume

        # Part of what applying means: an error fails the apply, which the task retries.
        consumer_register(
            name="ownership", consumer=ownership_consume, kinds=[EventsApplied, GraphRebuilt], required=True
        )
