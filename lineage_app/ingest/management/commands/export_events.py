"""`manage.py export_events`: write the event log as JSON Lines, each event as accepted with its log record."""

from __future__ import annotations

import gzip
import sys
from contextlib import ExitStack
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from lineage_app.ingest.exchange import events_export
from lineage_app.ingest.management.moments import option_moment
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.selectors import events_for_export


class Command(BaseCommand):
    help = (
        "Export the event log as JSON Lines: per event its bytes as accepted (`raw`), receivedAt, contentHash, "
        "status and verification. `import_events` loads the file into another installation."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--since", help="Only events received at or after this ISO 8601 time.")
        parser.add_argument("--until", help="Only events received before this ISO 8601 time.")
        parser.add_argument(
            "--namespace", help="Only events of this job namespace (the dataset namespace for DatasetEvents)."
        )
        parser.add_argument("--status", choices=LineageEvent.Status.values, help="Only events with this status.")
        parser.add_argument(
            "-o", "--output", default="-", help="File to write (gzip-compressed if it ends .gz); - for stdout."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        events = events_for_export(
            since=option_moment("since", options["since"]),
            until=option_moment("until", options["until"]),
            namespace=options["namespace"],
            status=options["status"],
        )
        target: str = options["output"]
        with ExitStack() as stack:
            if target == "-":
                write = sys.stdout.buffer.write
            elif target.endswith(".gz"):
                write = stack.enter_context(gzip.open(target, "wb")).write
            else:
                write = stack.enter_context(open(target, "wb")).write
            count = events_export(events=events, write=write)
        self.stderr.write(f"exported {count} event(s)")
