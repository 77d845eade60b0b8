"""`manage.py impact_report NODE_ID… --format json|csv|html|pdf --output FILE`: the API's report, to a file."""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from lineage_app.graph.model import LEVELS, Moment
from lineage_app.graph.node_ids import NodeNotFound
from lineage_app.instants import utc_text
from lineage_app.reports import exports, selectors


class Command(BaseCommand):
    help = "Write the impact report of one or more nodes (datasets, jobs or fields) to a file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("node_ids", nargs="+", metavar="NODE_ID")
        parser.add_argument("--format", choices=exports.FORMATS, default="json")
        parser.add_argument("--output", "-o", help="file to write (default: standard output)")
        parser.add_argument("--depth", type=int, default=10)
        parser.add_argument(
            "--at", "--as-of", dest="at", help="ISO 8601: the graph as it was then (default: the current graph)"
        )
        parser.add_argument(
            "--include-stale", action="store_true", help="also follow edges no completed run confirms any more"
        )
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
            at = datetime.fromisoformat(options["at"].replace("Z", "+00:00")) if options["at"] else None
        except ValueError as exc:
            raise CommandError(f"--at: {exc}") from exc
        moment = Moment(at=utc_text(at) if at else None, stale=options["include_stale"])
        try:
            report = selectors.impact_report(
                node_ids=options["node_ids"], depth=depth, moment=moment, level=options["level"]
            )
        except NodeNotFound as exc:
            raise CommandError(str(exc)) from exc
        output = options["output"]
        try:
            if output:
                with open(output, "wb") as target:
                    for piece in exports.export_bytes(report, options["format"]):
                        target.write(piece)
                self.stderr.write(f"wrote {report.total} affected assets to {output}")
            else:
                for piece in exports.export_bytes(report, options["format"]):
                    sys.stdout.buffer.write(piece)
                sys.stdout.buffer.flush()
        finally:
            report.close()
        if left_out := exports.stale_left_out_text(report):
            self.stderr.write(left_out)
