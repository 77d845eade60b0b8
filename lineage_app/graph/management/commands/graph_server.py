"""`manage.py graph_server`: run the embedded graph engine (ArcadeDB over Bolt) in the foreground."""

from __future__ import annotations

import os
from urllib.parse import urlparse

from django.conf import settings
from django.core.management.base import BaseCommand

from lineage_app.graph.embedded import EmbeddedEngineConfig, embedded_engine_serve


class Command(BaseCommand):
    help = "Run the embedded graph engine on the Bolt port of NEO4J_URI until interrupted."

    def handle(self, *args: object, **options: object) -> None:
        bolt = urlparse(settings.NEO4J_URI)
        if bolt.hostname not in {"127.0.0.1", "localhost"}:
            self.stderr.write(f"NEO4J_URI points at {bolt.hostname}: the embedded engine only serves loopback.")
            raise SystemExit(2)
        if settings.GRAPH_EMBEDDED_NICENESS:
            os.nice(settings.GRAPH_EMBEDDED_NICENESS)  # before the engine starts: its threads inherit it
        embedded_engine_serve(
            config=EmbeddedEngineConfig(
                root_path=settings.GRAPH_EMBEDDED_DIR,
                database=settings.NEO4J_DATABASE,
                password=settings.NEO4J_PASSWORD,
                bolt_port=bolt.port or 7687,
                http_port=settings.GRAPH_EMBEDDED_HTTP_PORT,
            )
        )
