"""What an orchestrator's run ran, from the kinds of its steps: dbt's commands, nothing for other producers."""

from __future__ import annotations

import pytest

from lineage_app.explorer.selectors.run_commands import run_command


def kinds(*pairs: tuple[str | None, str | None]) -> list[dict[str, object]]:
    return [{"integration": integration, "jobType": job_type, "steps": 1} for integration, job_type in pairs]


@pytest.mark.parametrize(
    ("steps", "command"),
    [
        (kinds(("DBT", "MODEL")), "run"),
        (kinds(("DBT", "TEST")), "test"),
        (kinds(("DBT", "SEED")), "seed"),
        (kinds(("DBT", "SNAPSHOT")), "snapshot"),
        (kinds(("DBT", "MODEL"), ("DBT", "TEST"), ("DBT", "SEED")), "build"),
        (kinds(("DBT", "SOURCE_FRESHNESS")), "source_freshness"),  # a kind not named here reads as sent
        (kinds(), None),  # dbt-ol seed reports no step of its own
        (kinds(("SPARK", "SQL_JOB")), None),  # a Spark application's actions are no command
        (kinds(("AIRFLOW", "TASK")), None),
        (kinds(("DBT", None)), None),
    ],
)
def test_a_runs_command_is_named_from_its_dbt_steps_only(steps: list[dict[str, object]], command: str | None) -> None:
    assert run_command(steps) == command
