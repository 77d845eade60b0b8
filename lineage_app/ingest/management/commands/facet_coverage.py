"""`manage.py facet_coverage`: write docs/facets.md from the code, or `--check` that it is up to date."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lineage_app.ingest.facet_coverage import DOC, facet_coverage_markdown


class Command(BaseCommand):
    help = "Write the facet coverage table (docs/facets.md) from what the code validates, applies and shows."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--check", action="store_true", help="Fail if docs/facets.md is not up to date.")

    def handle(self, *args: Any, **options: Any) -> None:
        text = facet_coverage_markdown()
        if options["check"]:
            if not DOC.exists() or DOC.read_text() != text:
                raise CommandError(f"{DOC} is stale: run `manage.py facet_coverage`")
            self.stdout.write(f"{DOC} is up to date")
            return
        DOC.write_text(text)
        self.stdout.write(f"wrote {DOC}")
