"""Builds the emitter the configuration asks for."""

from __future__ import annotations

from spark_agent.config import AgentConfig
from spark_agent.counters import Counters
from spark_agent.transports import Sink
from spark_agent.transports.file import FileSink
from spark_agent.transports.http import HttpSink
from spark_agent.transports.queue import AsyncEmitter


def build_emitter(config: AgentConfig, counters: Counters) -> AsyncEmitter:
    """An `AsyncEmitter` over the configured sink; no sink (all events dropped) when the
    configuration is unusable."""
    sink: Sink | None = None
    spill: FileSink | None = None
    transport = config.resolved_transport
    if not config.problems():
        if transport in ("http", "http+spill") and config.url:
            sink = HttpSink(
                config.url,
                config.token,
                timeout_s=config.http_timeout_s,
                max_retries=config.http_max_retries,
            )
        if config.file_path and transport in ("file", "http+spill"):
            file_sink = FileSink(config.file_path, config.file_max_bytes, config.file_backups)
            if transport == "file":
                sink = file_sink
            else:
                spill = file_sink
    return AsyncEmitter(
        sink,
        counters,
        spill=spill,
        capacity=config.queue_capacity,
        batch_size=config.batch_size,
    )
