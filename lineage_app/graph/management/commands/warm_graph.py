"""`manage.py warm_graph`: read the whole graph once so that the engine's page cache holds it (after a restart)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from lineage_app.graph.warmup import graph_warm


class Command(BaseCommand):
    help = (
        "Read every node's and relationship's properties and the key indexes once, so that the graph engine's page "
        "cache holds them: run it after the engine starts (Neo4j Community has no warm-up of its own)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        for statement, count, seconds in graph_warm():
            self.stdout.write(f"{seconds:7.1f}s  {count:>12,}  {statement}")
