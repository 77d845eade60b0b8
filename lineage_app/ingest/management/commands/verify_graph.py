"""`manage.py verify_graph`: compare recently applied runs in the graph with the fold of their logged events."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from lineage_app.ingest.consistency import runs_check


class Command(BaseCommand):
    help = (
        "Check that the most recently applied runs' nodes are the fold of their logged events (what a "
        "rebuild would write); exit 1 if any differ. --repair re-folds those that do."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--sample", type=int, default=settings.GRAPH_CHECK_SAMPLE, help="How many runs.")
        parser.add_argument("--repair", action="store_true", help="Re-fold and rewrite every run that differs.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["sample"] < 1:
            raise CommandError("--sample must be at least 1")
        check = runs_check(sample=options["sample"], repair=options["repair"])
        for difference in check.differences:
            self.stdout.write(json.dumps(difference, sort_keys=True, default=str))
        self.stdout.write(
            f"{check.runs_checked} run(s) checked, {check.runs_differing} differ from their events"
            + (f", {check.runs_repaired} repaired" if options["repair"] else "")
        )
        if check.runs_differing and not options["repair"]:
            raise CommandError("the graph differs from the event log: run again with --repair, or rebuild_graph")
