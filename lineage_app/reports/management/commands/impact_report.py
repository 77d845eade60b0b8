"""`manage.py impact_report NODE_ID… --format json|csv|html|pdf --output FILE`: the API's report, to a file."""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from lineage_app.graph.model import LEVELS
from lineage_app.graph.node_ids import NodeNotFound
from lineage_app.reports import exports, selectors


class Command(BaseCommand):
    help = "Write the impact report of one or more nodes (datasets, jobs or fields) to a file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("node_ids", nargs="+", metavar="NODE_ID")
        parser.add_argument("--format", choices=exports.FORMATS, default="json")
        parser.add_argument("--output", "-o", help="file to write (default: standard output)")
        parser.add_argument("--depth", type=int, default=10)
        parser.add_argument("--as-of", help="ISO 8601; edges first seen later are left out")
        parser.add_argument(
            "--level",
            choices=LEVELS,
            default="application",
            help="fold action jobs into their application job (default), or list them",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        depth = options["depth"]
        if not 1 <= depth <= settings.LINEAGE_MAX_DEPTH:
            raise CommandError(f"--depth must be between 1 and {settings.LINEAGE_MAX_DEPTH}")
        try:
            as_of = datetime.fromisoformat(options["as_of"].replace("Z", "+00:00")) if options["as_of"] else None
        except ValueError as exc:
            raise CommandError(f"--as-of: {exc}") from exc
        try:
            report = selectors.impact_report(
                node_ids=options["node_ids"], depth=depth, as_of=as_of, level=options["level"]
            )
        except NodeNotFound as exc:
            raise CommandError(str(exc)) from exc
        output = options["output"]
        if output:
            with open(output, "wb") as target:
                for piece in exports.export_bytes(report, options["format"]):
                    target.write(piece)
            self.stderr.write(f"wrote {report.total} affected assets to {output}")
        else:
            for piece in exports.export_bytes(report, options["format"]):
                sys.stdout.buffer.write(piece)
            sys.stdout.buffer.flush()
