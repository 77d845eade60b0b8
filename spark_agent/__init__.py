"""Tributary's PySpark lineage agent: `install(spark)` and every action emits OpenLineage."""

from __future__ import annotations

__version__ = "0.1.0"

from spark_agent.lifecycle import Agent, counters, current_agent, install, with_run_id

__all__ = ["Agent", "__version__", "counters", "current_agent", "install", "with_run_id"]
