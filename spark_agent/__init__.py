"""Tributary's PySpark lineage agent: `install(spark)` and every action emits OpenLineage."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["Agent", "__version__", "counters", "current_agent", "install", "with_run_id"]


def __getattr__(name: str) -> Any:
    # Imported lazily so that `import spark_agent` (its `__version__`, `python -m spark_agent --help`) works on
    # machines without pyspark.
    if name in __all__:
        from spark_agent import lifecycle

        return getattr(lifecycle, name)
    raise AttributeError(f"module 'spark_agent' has no attribute {name!r}")
