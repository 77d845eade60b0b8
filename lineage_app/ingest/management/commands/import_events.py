"""`manage.py import_events`: load exported event logs, or JSON-Lines files of OpenLineage events, into the log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from lineage_app.ingest.exchange import events_import


class Command(BaseCommand):
    help = (
        "Import JSON-Lines files (`export_events` output, or the agent's `file` transport output; .gz too). "
        "Each event is checked like an HTTP-ingested one and stored once; signatures are verified when it is applied."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", type=Path)
        parser.add_argument("--progress", action="store_true", help="Draw a progress bar (bytes read).")
        parser.add_argument(
            "--apply",
            action="store_true",
            help="Verify and apply the imported events not yet applied here (no workers).",
        )
        parser.add_argument("--batch-size", type=int, default=500)

    def handle(self, *args: Any, **options: Any) -> None:
        paths: list[Path] = options["files"]
        if missing := [str(path) for path in paths if not path.is_file()]:
            raise CommandError(f"no such file: {', '.join(missing)}")
        total = sum(path.stat().st_size for path in paths)
        with tqdm(total=total, unit="B", unit_scale=True, disable=not options["progress"], file=self.stderr) as bar:
            report = events_import(
                paths=paths, apply=options["apply"], batch_size=options["batch_size"], progress=bar.update
            )
        for error in report.errors:
            self.stderr.write(error)
        for where in report.torn:
            self.stderr.write(f"{where}: torn last line (no line break, not complete JSON): left for a later import")
        applied = f", {report.applied} applied" if options["apply"] else ""
        self.stdout.write(
            f"imported {report.lines} line(s): {report.accepted} new, {report.duplicate} already in the log, "
            f"{report.rejected} rejected{applied}, {len(report.torn)} torn"
        )
