"""The real example pipeline's lineage for the browser tests: `examples/pipeline.py` run once per
session in its own process (a real local Spark, the agent writing to its file transport), its events
signed with the example's key as `make run` signs them, then sent through the real ingest path into
each test's fresh graph with that key registered (so its runs show VERIFIED, as after `make run`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from lineage_app.stack.example import example_key_pair, example_signing_key
from tests.apply import accept_and_apply

# `clean_orders` runs twice as one application with one action job (named after its output); the
# second run stops reading one input and reads another, so right after the pipeline the job's
# edge from the dropped input is stale. Paths are relative to the lake (`ExamplePipeline.dataset_id`).
CLEAN_ORDERS_ACTION = "clean_orders.write_parquet.orders_clean"
CLEAN_ORDERS_KEPT_INPUTS = ("bronze/orders", "bronze/customers")
CLEAN_ORDERS_DROPPED_INPUT = "reference/blocked_customers.csv"
CLEAN_ORDERS_ADDED_INPUT = "reference/eur_rates.csv"


@dataclass(frozen=True)
class ExamplePipeline:
    """The events the example pipeline emitted, and where its lake lives (its dataset names)."""

    events: list[dict[str, Any]]
    lake: Path
    keys_dir: Path

    def dataset_id(self, path: str) -> str:
        return f"dataset:file:{self.lake / path}"

    def apply(self) -> None:
        example_signing_key(keys_dir=self.keys_dir)
        accept_and_apply(*self.events)


def example_pipeline_run(data_dir: Path) -> ExamplePipeline:
    """Run the example pipeline through the agent, signing with the example's key, into a JSON-Lines file and read
    what it wrote."""
    events_file = data_dir / "events.jsonl"
    keys_dir = data_dir / "keys"
    keys_dir.mkdir(parents=True, exist_ok=True)
    private_key, _ = example_key_pair(keys_dir=keys_dir)
    env = {
        **os.environ,
        "TRIBUTARY_TRANSPORT": "file",
        "TRIBUTARY_FILE_PATH": str(events_file),
        "TRIBUTARY_SIGNING_KEY": str(private_key),
    }
    for name in ("TRIBUTARY_URL", "TRIBUTARY_TOKEN"):
        env.pop(name, None)
    result = subprocess.run(
        [sys.executable, "-m", "examples.pipeline", "--data-dir", str(data_dir)],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, f"the example pipeline failed:\n{result.stdout}\n{result.stderr}"
    events = [json.loads(line) for line in events_file.read_text().splitlines() if line.strip()]
    return ExamplePipeline(events=events, lake=(data_dir / "lake").resolve(), keys_dir=keys_dir)
