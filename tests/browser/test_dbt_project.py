"""A real dbt project (tests/dbt/shop: two seeds, three models, tests of which one fails) run through OpenLineage's own
dbt integration, `dbt-ol seed`, `run` and `test`, posting over HTTP to the live server: what an analytics engineer
who runs dbt every hour meets in Tributary."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from lineage_app.explorer.selectors.datasets import dataset_detail
from lineage_app.explorer.selectors.failures import failure_job_list
from lineage_app.explorer.selectors.jobs_and_runs import job_detail, job_run_list
from lineage_app.explorer.selectors.lineage import lineage_for_node
from lineage_app.graph.driver import graph_read, records
from lineage_app.graph.model import Moment
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from tests.browser.conftest import shot
from tests.browser.test_explorer import node_ids, open_lineage
from tests.conftest import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DBT_BIN = ROOT / ".venv-dbt" / "bin"
PROJECT = ROOT / "tests" / "dbt" / "shop"


def dbt_ol(command: str, project: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(DBT_BIN / "dbt-ol"), command, "--profiles-dir", ".", "--project-dir", "."],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture
def shop(graph: Any, live_server: Any, ingest_token: str, tmp_path: Path) -> str:
    """The shop project built and tested by dbt-ol against the live server, its events applied; the dataset
    namespace its tables are named in."""
    if not (DBT_BIN / "dbt-ol").exists():
        pytest.skip(f"{DBT_BIN / 'dbt-ol'} is missing: `make test` builds .venv-dbt from requirements/dbt.txt")
    project = tmp_path / "shop"
    shutil.copytree(PROJECT, project)
    database = tmp_path / "shop.duckdb"
    env = {
        **os.environ,
        "PATH": f"{DBT_BIN}{os.pathsep}{os.environ['PATH']}",  # dbt-ol runs `dbt`
        "SHOP_DUCKDB": str(database),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "OPENLINEAGE__TRANSPORT__TYPE": "http",
        "OPENLINEAGE__TRANSPORT__URL": live_server.url,
        "OPENLINEAGE__TRANSPORT__ENDPOINT": "api/v1/lineage",
        "OPENLINEAGE__TRANSPORT__AUTH__TYPE": "api_key",
        "OPENLINEAGE__TRANSPORT__AUTH__APIKEY": ingest_token,
    }
    for command, exit_code in (("seed", 0), ("run", 0), ("test", 1)):  # one accepted_values test fails
        finished = dbt_ol(command, project, env)
        assert finished.returncode == exit_code, (command, finished.stdout[-3000:], finished.stderr[-3000:])
        assert "Emitted" in finished.stderr + finished.stdout, (command, finished.stderr[-3000:])
    ids = list(LineageEvent.objects.order_by("event_time", "id").values_list("id", flat=True))
    assert len(ids) == 16  # seed 2, run 8 (the run job and three models), test 6 (the run job and two tests)
    events_apply(event_ids=ids)
    assert set(LineageEvent.objects.values_list("status", flat=True)) == {"applied"}
    return f"duckdb://{database}"


def drawn(body: dict[str, Any]) -> tuple[set[str], set[tuple[str, str]]]:
    nodes = {node["id"] for node in body["graph"]}
    edges = {(e["origin"], e["destination"]) for node in body["graph"] for e in node["outEdges"]}
    return nodes, edges


def test_a_dbt_project_built_and_tested_by_dbt_ol_reads_as_its_engineer_expects(
    shop: str, logged_in: Any, live_server: Any
) -> None:
    """One build of the project (dbt is slow to start: each command costs seconds), every point checked on it."""
    table = {name: f"dataset:{shop}:shop.main.{name}" for name in ("stg_orders", "stg_customers", "fct_orders")}
    model = {name: f"job:dbt:shop.main.shop.{name}" for name in table}
    seed = {name: f"dataset:{shop}:shop.main.raw_{name}" for name in ("orders", "customers")}
    built = {
        (model["stg_orders"], table["stg_orders"]),
        (model["stg_customers"], table["stg_customers"]),
        (table["stg_orders"], model["fct_orders"]),
        (table["stg_customers"], model["fct_orders"]),
        (model["fct_orders"], table["fct_orders"]),
    }
    # dbt-ol lists no input of a staging model (a seed is no model or source parent); its column lineage names
    # the seed's columns, so the seed is its input, inferred from column lineage.
    inferred = {(seed["orders"], model["stg_orders"]), (seed["customers"], model["stg_customers"])}

    # The models with their tables between them, at either level: the dbt run job is an orchestrator, whose
    # models are the pipeline's steps, so it is never drawn as one job reading and writing the staging tables.
    for level in ("application", "action"):
        body = lineage_for_node(node_id=table["fct_orders"], depth=6, direction="upstream", level=level)
        nodes, edges = drawn(body)
        assert edges == built | inferred, level
        marked = {(e["origin"], e["destination"]) for node in body["graph"] for e in node["outEdges"] if e["inferred"]}
        assert marked == inferred, level
        assert "job:dbt:dbt-run-shop" not in nodes
        jobs_reading = {(job, source) for source, job in edges}
        assert not any((job, target) in jobs_reading for job, target in edges if job.startswith("job:"))
    left_out = lineage_for_node(
        node_id=table["fct_orders"], depth=6, direction="upstream", moment=Moment(inferred=False)
    )
    assert drawn(left_out)[1] == built
    assert job_detail(node_id=model["stg_orders"])["inferredInputs"] == [seed["orders"]]

    # The failed test is a failed run of its own test job; the models it tested stay built.
    states = graph_read(
        lambda tx: records(
            tx,
            "MATCH (j:Job {namespace: 'dbt'}) RETURN j.name AS name, j.latestRunState AS state ORDER BY name",
        )
    )
    assert {row["name"]: row["state"] for row in states} == {
        "dbt-run-shop": "FAILED",
        "shop.main.shop.fct_orders": "COMPLETED",
        "shop.main.shop.stg_customers": "COMPLETED",
        "shop.main.shop.stg_customers.test": "COMPLETED",
        "shop.main.shop.stg_orders": "COMPLETED",
        "shop.main.shop.stg_orders.test": "FAILED",
    }

    # One job name carries seed, run and test: each run says which it ran (dbt-ol seed reports no step of its
    # own, so it names none), and the job keeps each command's own latest status.
    runs = job_run_list(node_id="job:dbt:dbt-run-shop", limit=10, offset=0)["results"]
    assert [(run["command"], run["state"]) for run in runs] == [
        ("test", "FAILED"),
        ("run", "COMPLETED"),
        (None, "COMPLETED"),
    ]
    by_command = job_detail(node_id="job:dbt:dbt-run-shop")["latestByCommand"]
    assert [(entry["command"], entry["run"]["state"]) for entry in by_command] == [
        ("run", "COMPLETED"),
        ("test", "FAILED"),
    ]

    # The test events named stg_orders with its assertions only: the model's own facets, sent by `run`, stay
    # (facets merge by name), and its columns keep the descriptions dbt sent.
    staging = dataset_detail(node_id=table["stg_orders"])
    assert {"documentation", "dataSource", "dbt_model", "dataQualityAssertions"} <= set(staging["facets"])
    assert staging["facets"]["documentation"]["description"] == "Orders as the shop recorded them, one row each."
    described = {field["name"]: field.get("description") for field in staging["fields"]}
    assert described["status"] == "Where the order stands."

    # The same in the browser: the lineage page, the dbt run job's page, the staging table's page.
    page = logged_in
    open_lineage(page, live_server, table["fct_orders"], depth=6, direction="upstream")
    assert node_ids(page) == set(table.values()) | set(model.values()) | set(seed.values())
    seed_edge = f"{seed['orders']}->{model['stg_orders']}"
    assert "inferred" in page.evaluate("id => window.__tributaryGraph.classes(id)", seed_edge)
    assert page.evaluate("id => window.__tributaryGraph.edgeLine(id)", seed_edge)["style"] == "dashed"
    built_edge = f"{table['stg_orders']}->{model['fct_orders']}"
    assert page.evaluate("id => window.__tributaryGraph.edgeLine(id)", built_edge)["style"] == "solid"
    assert "inferred from column lineage" in page.inner_text("#edge-legend")
    shot(page, "dbt-lineage", readme="dbt-lineage")
    page.goto(f"{live_server.url}/job?nodeId={quote(model['stg_orders'], safe='')}")
    page.locator("#job-inputs [data-inferred]").wait_for()
    assert "inferred from column lineage" in page.inner_text("#job-inputs")
    page.goto(f"{live_server.url}/job?nodeId={quote('job:dbt:dbt-run-shop', safe='')}")
    commands = page.locator("#job-commands")
    commands.wait_for()
    states = page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('#job-commands [data-command]')]"
        ".map(e => [e.dataset.command, e.querySelector('.badge').textContent.trim()]))"
    )
    assert states == {"run": "COMPLETED", "test": "FAILED"}
    page.goto(f"{live_server.url}/dataset?nodeId={quote(table['stg_orders'], safe='')}")
    page.get_by_text("Where the order stands.").wait_for()
    page.locator("#quality #quality-checks").wait_for()
    assert page.locator("#quality h2 [data-quality]").inner_text() == "quality failing"
    assert "accepted_values" in page.inner_text("#quality-checks")
    shot(page, "dbt-dataset", readme="dbt-dataset")

    # The failed test says what failed: a data-quality failure naming the check, its column and values, whose
    # blast radius is the tested table's downstream, not the test job's (empty) outputs.
    failed = failure_job_list(
        namespace=None, job=None, classification="data_quality", since=None, until=None, limit=10, offset=0
    )["results"]
    assert [group["job"] for group in failed] == ["job:dbt:dbt-run-shop"]  # told under the dbt command's run
    last = failed[0]["lastFailure"]
    assert last["failedActions"] == [f"{model['stg_orders']}.test"]
    assert failed[0]["sinceLastSuccess"] is None  # compared with the last `test` (none before), not with `run`
    assert last["classification"] == "data_quality"
    assert "accepted_values" in last["cause"] and "status" in last["cause"], last["cause"]
    assert last["testedDatasets"] == [table["stg_orders"]]
    assert {d["id"] for d in failed[0]["blastRadius"]["datasets"]} >= {table["stg_orders"], table["fct_orders"]}
    page.goto(f"{live_server.url}/failures")
    page.locator("article.failure", has_text="accepted_values").first.wait_for()
    page.locator("#failure-groups table", has_text="dbt-run-shop").wait_for()
    assert "Data quality" in page.inner_text("#failure-groups")
    shot(page, "dbt-failure", readme="dbt-failure")
