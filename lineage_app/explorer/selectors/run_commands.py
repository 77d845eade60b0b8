"""What a run of an orchestrator's job did, named as its users name it.

openlineage-dbt reports every dbt command (`dbt-ol seed`, `run`, `test`, `snapshot`, `build`) as a run of one job,
`dbt-run-<project>`, and none of its facets names the command. The kinds of step the run's child runs were say
it: models for `run`, tests for `test`, seeds for `seed`, snapshots for `snapshot`, several kinds for `build`.
An Airflow DAG's runs (and its tasks') are told apart by how the DAG run was triggered (`scheduled`, `manual`,
`backfill`, …: the run's `trigger`, `graph.facets.airflow_trigger`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# How many of a job's newest runs are looked through for a command's latest run.
COMMAND_RUNS = 50

DBT_COMMANDS = {"MODEL": "run", "TEST": "test", "SEED": "seed", "SNAPSHOT": "snapshot"}


def run_command(step_kinds: Sequence[Mapping[str, Any]], trigger: str | None = None) -> str | None:
    """The command a run ran, from the kinds of its child runs' jobs (`listings.run_step_kinds`), else its Airflow
    `trigger`; None when its steps are not dbt's (or it has none: `dbt-ol seed` reports no step of its own) and
    it has no trigger."""
    dbt = {str(kind["jobType"]) for kind in step_kinds if kind["integration"] == "DBT" and kind["jobType"]}
    if len(dbt) > 1:
        return "build"
    return DBT_COMMANDS.get(next(iter(dbt)), next(iter(dbt)).lower()) if dbt else trigger
