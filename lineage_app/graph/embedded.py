"""The embedded graph engine: an ArcadeDB server with its Bolt listener, for zero-setup runs.

This is the only engine-specific code in Tributary. Everything else talks Bolt through
the official `neo4j` driver and cannot tell ArcadeDB from Neo4j 5.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

BOLT_PLUGIN = "Bolt:com.arcadedb.bolt.BoltProtocolPlugin"


@dataclass(frozen=True, kw_only=True)
class EmbeddedEngineConfig:
    """Where the embedded engine keeps its files and which loopback ports it listens on."""

    root_path: Path
    database: str
    password: str
    bolt_port: int = 7687
    http_port: int = 2480
    heap: str = "1g"


def embedded_engine_serve(*, config: EmbeddedEngineConfig, ready: threading.Event | None = None) -> None:
    """Start ArcadeDB, create the database if needed, and block until SIGTERM / SIGINT.

    ArcadeDB creates databases only through its own API (not over Bolt), so the
    database is made here before any client connects. Every listener is bound to
    127.0.0.1: the embedded engine is never reachable from another machine.
    """
    import arcadedb_embedded

    config.root_path.mkdir(parents=True, exist_ok=True)
    server = arcadedb_embedded.ArcadeDBServer(
        root_path=str(config.root_path),
        root_password=config.password,
        config={
            "host": "127.0.0.1",
            "http_port": config.http_port,
            "server_plugins": BOLT_PLUGIN,
            "bolt_port": config.bolt_port,
        },
        jvm_kwargs={"heap_size": config.heap},
    )
    server.start()
    databases_dir = config.root_path / "databases" / config.database
    if not databases_dir.exists():
        server.create_database(config.database)
    logger.info("embedded graph engine listening on bolt://127.0.0.1:%s", config.bolt_port)
    print(f"graph engine ready on bolt://127.0.0.1:{config.bolt_port}", flush=True)

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    if ready is not None:
        ready.set()
    stop.wait()
    server.stop()
    # The JVM inside this process cannot always be torn down cleanly by the interpreter
    # (JPype can crash at exit), and the data is already closed: leave at once.
    os._exit(0)
