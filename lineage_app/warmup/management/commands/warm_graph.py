"""`manage.py warm_graph`: after the graph engine starts, read the whole graph once (its page cache) and run the read
API's reads a few times (its plans and compiled statements)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lineage_app.graph.warmup import graph_warm
from lineage_app.warmup.reads import WARM_BUDGET, WARM_ROUNDS, graph_reads_warm


class Command(BaseCommand):
    help = (
        "Warm the graph engine after it starts: read every node's and relationship's properties and the key indexes "
        "once, so that its page cache holds them (Neo4j Community has no warm-up of its own), then run each kind of "
        "read the API answers most (lineage, column lineage, impact, search, the dataset and job pages) a few times "
        "from nodes of the graph, so that the engine has planned and compiled their statements."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--no-pages", action="store_true", help="skip reading the whole graph (the page cache)")
        parser.add_argument("--no-reads", action="store_true", help="skip the read API's reads (the plans)")
        parser.add_argument(
            "--rounds", type=int, default=WARM_ROUNDS, help=f"times each read runs (default {WARM_ROUNDS})"
        )
        parser.add_argument(
            "--budget",
            type=float,
            default=WARM_BUDGET,
            help=f"seconds after which the reads start no further round (default {WARM_BUDGET:g})",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["no_pages"]:
            for statement, count, seconds in graph_warm():
                self.stdout.write(f"{seconds:7.1f}s  {count:>12,}  {statement}")
        if options["no_reads"]:
            return
        done = graph_reads_warm(rounds=options["rounds"], budget=options["budget"])
        for read in done.reads:
            self.stdout.write(f"read warm-up: {read.line()}")
        stopped = f", stopped by its {options['budget']:g}s budget" if done.out_of_budget else ""
        self.stdout.write(f"read warm-up: {done.rounds} rounds in {done.seconds:.1f}s{stopped}")
        ran = [read for read in done.reads if read.reads]
        if ran and all(read.failed == read.reads for read in ran):
            raise CommandError("every read of the warm-up failed (see above)")
