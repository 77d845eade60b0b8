"""`manage.py prune_events`: delete applied events older than the retention period (the graph keeps what they built)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from lineage_app.ingest.services import events_prune


class Command(BaseCommand):
    help = (
        "Delete applied events received more than N days ago, in batches; pending, failed and quarantined ones "
        "stay. `rebuild_graph` can afterwards rebuild only what the log still holds: export first to archive."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--days", type=int, help="Age in days (default: EVENT_RETENTION_DAYS).")
        parser.add_argument("--dry-run", action="store_true", help="Count what would be deleted, delete nothing.")
        parser.add_argument("--batch-size", type=int, default=settings.EVENT_PRUNE_BATCH_SIZE)

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["days"] if options["days"] is not None else settings.EVENT_RETENTION_DAYS
        if days <= 0:
            raise CommandError("give --days N (N > 0) or set EVENT_RETENTION_DAYS: 0 keeps the log forever")
        count = events_prune(older_than_days=days, batch_size=options["batch_size"], dry_run=options["dry_run"])
        verb = "would delete" if options["dry_run"] else "deleted"
        self.stdout.write(f"{verb} {count} applied event(s) received more than {days} day(s) ago")
