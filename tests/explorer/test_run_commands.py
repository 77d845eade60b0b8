"""What an orchestrator's run ran: dbt's commands from the kinds of its steps, an Airflow DAG run's trigger from the
Airflow provider's facets, nothing for other producers."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from lineage_app.explorer.selectors.run_commands import run_command
from tests.apply import accept_and_apply
from tests.events import facet
from tests.explorer.application_graph import job_type, parent, run

pytestmark = pytest.mark.django_db


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


# ---- Airflow: a DAG's runs named by how they were triggered ----

DAG_RUNS = {"00000000-0000-4000-8000-0000000a0001": "scheduled", "00000000-0000-4000-8000-0000000a0002": "manual"}


def _dag_run_facets(run_type: str, *, task: bool, dag_run_id: str) -> dict[str, Any]:
    """The Airflow provider's run facets: a DAG run's `airflowDagRun`, a task run's `airflow` (with its parent)."""
    dag_run = {"dag_id": "nightly", "run_id": f"{run_type}__2026-01-05T08:00:00", "run_type": run_type}
    if not task:
        return {"airflowDagRun": facet(dag={"dag_id": "nightly"}, dagRun=dag_run)}
    return {
        "airflow": facet(dag={"dag_id": "nightly"}, dagRun=dag_run, task={"task_id": "transform"}),
        **parent(dag_run_id, "airflow", "nightly", root=(dag_run_id, "airflow", "nightly")),
    }


@pytest.fixture
def airflow_chain(graph: Any) -> None:
    """Two runs of one DAG, scheduled then manual, each with its task run, which runs a Spark application."""
    events = []
    for n, (dag_run_id, run_type) in enumerate(DAG_RUNS.items()):
        task_run_id = dag_run_id[:-4] + f"b00{n}"
        events += run(
            dag_run_id,
            "nightly",
            namespace="airflow",
            minutes=10 * n,
            parent_of=_dag_run_facets(run_type, task=False, dag_run_id=dag_run_id),
            typed=job_type("AIRFLOW", "DAG"),
        )
        events += run(
            task_run_id,
            "nightly.transform",
            namespace="airflow",
            minutes=10 * n + 1,
            parent_of=_dag_run_facets(run_type, task=True, dag_run_id=dag_run_id),
            typed=job_type("AIRFLOW", "TASK"),
        )
        events += run(
            dag_run_id[:-4] + f"c00{n}",
            "transform_orders",
            minutes=10 * n + 2,
            parent_of=parent(task_run_id, "airflow", "nightly.transform", root=(dag_run_id, "airflow", "nightly")),
            typed=job_type("SPARK", "APPLICATION"),
        )
    accept_and_apply(*events)


def test_an_airflow_dag_run_and_its_task_runs_say_how_the_dag_run_was_triggered(
    airflow_chain: None, read_client: APIClient
) -> None:
    def runs(job: str) -> list[tuple[str | None, str]]:
        response = read_client.get("/api/v1/jobs/runs", {"nodeId": job})
        assert response.status_code == 200, response.content
        return [(r["command"], r["state"]) for r in response.json()["results"]]

    assert runs("job:airflow:nightly") == [("manual", "COMPLETED"), ("scheduled", "COMPLETED")]
    assert runs("job:airflow:nightly.transform") == [("manual", "COMPLETED"), ("scheduled", "COMPLETED")]
    assert runs("job:spark:transform_orders") == [(None, "COMPLETED"), (None, "COMPLETED")]  # sent no Airflow facet
    detail = read_client.get("/api/v1/jobs/detail", {"nodeId": "job:airflow:nightly"}).json()
    assert [(e["command"], e["run"]["runId"]) for e in detail["latestByCommand"]] == [
        ("manual", "00000000-0000-4000-8000-0000000a0002"),
        ("scheduled", "00000000-0000-4000-8000-0000000a0001"),
    ]
    one = read_client.get("/api/v1/jobs/runs/00000000-0000-4000-8000-0000000a0001").json()
    assert one["command"] == "scheduled"
    assert "trigger" not in one


def test_a_dbt_command_named_by_its_steps_wins_over_a_trigger() -> None:
    assert run_command(kinds(("DBT", "MODEL")), "manual") == "run"
    assert run_command(kinds(), "backfill") == "backfill"
