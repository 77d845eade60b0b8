"""`manage.py rebuild_graph`: wipe the graph and replay the event log into it, with a progress bar."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from tqdm import tqdm

from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import graph_rebuild


class Command(BaseCommand):
    help = "Rebuild the graph from the durable event log (the graph is a projection of the log)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch-size", type=int, default=settings.INGEST_APPLY_BATCH_SIZE)
        parser.add_argument("--no-progress", action="store_true", help="Do not draw a progress bar.")

    def handle(self, *args: Any, **options: Any) -> None:
        total = LineageEvent.objects.exclude(status=LineageEvent.Status.QUARANTINED).count()
        with tqdm(total=total, unit="event", disable=options["no_progress"], file=self.stderr) as bar:
            replayed = graph_rebuild(batch_size=options["batch_size"], progress=bar.update)
        self.stdout.write(f"graph rebuilt from {replayed} event(s)")
