"""The issue's scenario: job `etl` reads `A` and `B` into `OUT` on day 1, then `A` and `C` on day 2."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from tests.events import T0, dataset, new_run_id, run_event

NAMESPACE = "file:///lake"
JOB = "etl"
DAY_1 = T0
DAY_2 = T0 + timedelta(days=1)


def dataset_id(name: str) -> str:
    return f"dataset:{NAMESPACE}:{name}"


JOB_ID = f"job:spark:{JOB}"


def field_id(name: str, field: str) -> str:
    return f"datasetField:{NAMESPACE}:{name}:{field}"


def one_run(
    day: Any, inputs: list[str], *, state: str = "COMPLETE", run_id: str | None = None, output: str = "OUT"
) -> list[dict[str, Any]]:
    """START and an end event of one `etl` run on `day` reading `inputs` into `output`; the output's
    `total` column derives from each input's `amount`."""
    run_id = run_id or new_run_id()
    sources = [dataset(NAMESPACE, name, fields=[("amount", "double")]) for name in inputs]
    target = dataset(
        NAMESPACE,
        output,
        fields=[("total", "double")],
        column_lineage={"total": [(NAMESPACE, name, "amount") for name in inputs]},
    )
    return [
        run_event("START", run_id=run_id, job=JOB, at=day, inputs=sources, outputs=[target]),
        run_event(state, run_id=run_id, job=JOB, at=day + timedelta(minutes=10), inputs=sources, outputs=[target]),
    ]


def two_days() -> list[dict[str, Any]]:
    """Four plain OpenLineage events: START and COMPLETE of the day-1 run (A, B) and the day-2 run (A, C)."""
    return one_run(DAY_1, ["A", "B"]) + one_run(DAY_2, ["A", "C"])
