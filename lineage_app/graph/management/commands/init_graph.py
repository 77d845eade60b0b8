"""`manage.py init_graph`: create the graph's constraints and indexes, backfill search names and current tags (once per
graph), and wait for the indexes to come online (safe to run again)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from lineage_app.graph.schema import INDEX_TIMEOUT, graph_schema_init


class Command(BaseCommand):
    help = (
        "Create the graph's uniqueness constraints, lookup and text indexes if they are missing, give nodes written "
        "before search names their searchName and tagged nodes written before current tags their tags (once per graph: "
        "a finished backfill is recorded in it), then wait (up to --index-timeout seconds) until every index is online."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--index-timeout",
            type=float,
            default=INDEX_TIMEOUT,
            help=f"seconds to wait for new indexes to come online (default {INDEX_TIMEOUT:g}; 0: do not wait). "
            "Giving up is no error: they keep populating in the background",
        )
        parser.add_argument(
            "--backfill",
            action="store_true",
            help="run every backfill again, also those this graph has finished (after a writer older than them, say "
            "an old worker still running through an upgrade, wrote nodes without what they fill)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        done = graph_schema_init(index_timeout=options["index_timeout"], backfill_again=options["backfill"])
        self.stdout.write(f"graph schema ready ({len(done.statements)} constraints and indexes)")
        self.stdout.write(f"backfills: {done.backfills.message()}")
        write = self.stdout.write if done.indexes.online else self.stderr.write
        write(f"indexes: {done.indexes.message()}")
