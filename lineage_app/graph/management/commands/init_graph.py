"""`manage.py init_graph`: create the graph's constraints and indexes, backfill search names (safe to run again)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from lineage_app.graph.schema import graph_schema_init


class Command(BaseCommand):
    help = (
        "Create the graph's uniqueness constraints, lookup and text indexes if they are missing, and give nodes "
        "written before search names their searchName."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        statements = graph_schema_init()
        self.stdout.write(f"graph schema ready ({len(statements)} constraints and indexes)")
