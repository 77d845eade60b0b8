"""Inputs inferred from column lineage: openlineage-dbt lists only a model's model and source parents as its
inputs, while the model's column lineage names the seed tables it reads too. A dataset a run's column lineage
names as a source, but that is no input of its, becomes an input marked `inferred`: drawn and listed as such,
left out with `includeInferred=false`, made real by any event that lists it as an input, through the same
time-aware fold as every other input."""

from __future__ import annotations

import itertools
import json
import random
from io import StringIO
from typing import Any
from urllib.parse import urlencode

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from lineage_app.graph.writer import graph_wipe
from lineage_app.ingest.models import LineageEvent
from tests.apply import accept_and_apply
from tests.events import dataset
from tests.explorer.application_graph import job_type, parent, run
from tests.graph_dump import graph_dump

pytestmark = pytest.mark.django_db

DUCKDB = "duckdb:///srv/dbt/shop.duckdb"
SEED, STAGING, FACT = (f"dataset:{DUCKDB}:shop.main.{name}" for name in ("raw_orders", "stg_orders", "fct_orders"))
STG_MODEL, FCT_MODEL = "job:dbt:shop.main.shop.stg_orders", "job:dbt:shop.main.shop.fct_orders"
DBT_RUN = "dbt-run-shop"
COLUMNS = [("order_id", "integer"), ("status", "varchar")]


def ids(n: int) -> str:
    return f"00000000-0000-4000-8000-0000000e{n:04d}"


def table(name: str, *, derived_from: str | None = None) -> dict[str, Any]:
    """A DuckDB table as dbt-ol names it; with `derived_from`, an output whose column lineage names that table's
    columns as its sources."""
    lineage = (
        {column: [(DUCKDB, f"shop.main.{derived_from}", column)] for column, _ in COLUMNS} if derived_from else None
    )
    return dataset(DUCKDB, f"shop.main.{name}", fields=COLUMNS, column_lineage=lineage)


def model(run_id: str, name: str, *, minutes: int, inputs: list[dict[str, Any]], output: dict[str, Any]) -> list[Any]:
    """A model's START and COMPLETE as `dbt-ol run` sends them: a child of the dbt run."""
    return run(
        run_id,
        f"shop.main.shop.{name}",
        namespace="dbt",
        minutes=minutes,
        parent_of=parent(ids(1), "dbt", DBT_RUN, root=(ids(1), "dbt", DBT_RUN)),
        typed=job_type("DBT", "MODEL"),
        inputs=inputs,
        outputs=[output],
    )


def dbt_run() -> list[dict[str, Any]]:
    """`dbt-ol run` of the shop: the staging model reads the seed, which only its column lineage names."""
    return [
        *run(ids(1), DBT_RUN, namespace="dbt", typed=job_type("DBT", "JOB")),
        *model(ids(2), "stg_orders", minutes=1, inputs=[], output=table("stg_orders", derived_from="raw_orders")),
        *model(
            ids(3),
            "fct_orders",
            minutes=2,
            inputs=[table("stg_orders")],
            output=table("fct_orders", derived_from="stg_orders"),
        ),
    ]


def get(client: APIClient, path: str, **params: Any) -> Any:
    response = client.get(f"/api/v1/{path}?{urlencode(params)}")
    assert response.status_code == 200, response.content
    return json.loads(b"".join(response.streaming_content)) if response.streaming else response.json()


def edges(client: APIClient, node_id: str = FACT, **params: Any) -> dict[tuple[str, str], bool]:
    """The edges of `node_id`'s upstream lineage, each with whether it is inferred."""
    body = get(client, "lineage", nodeId=node_id, depth=6, direction="upstream", **params)
    return {(e["origin"], e["destination"]): e["inferred"] for node in body["graph"] for e in node["outEdges"]}


def test_a_seed_only_column_lineage_names_is_an_inferred_input_upstream_of_its_model(
    graph: Any, read_client: APIClient
) -> None:
    accept_and_apply(*dbt_run())
    for level in ("application", "action"):
        assert edges(read_client, level=level) == {
            (SEED, STG_MODEL): True,
            (STG_MODEL, STAGING): False,
            (STAGING, FCT_MODEL): False,
            (FCT_MODEL, FACT): False,
        }, level
    job = get(read_client, "jobs/detail", nodeId=STG_MODEL)
    assert (job["inputs"], job["inferredInputs"]) == ([SEED], [SEED])
    assert get(read_client, "jobs/detail", nodeId=FCT_MODEL)["inferredInputs"] == []
    seed = get(read_client, "datasets/detail", nodeId=SEED)
    assert (seed["consumers"], seed["inferredConsumers"]) == ([STG_MODEL], [STG_MODEL])
    assert get(read_client, "datasets/detail", nodeId=STAGING)["inferredConsumers"] == []


def test_include_inferred_false_leaves_it_out_of_lineage_impact_and_root_cause(
    graph: Any, read_client: APIClient
) -> None:
    accept_and_apply(*dbt_run())
    assert (SEED, STG_MODEL) not in edges(read_client, includeInferred="false")
    assert (STAGING, FCT_MODEL) in edges(read_client, includeInferred="false")
    downstream = get(read_client, "lineage", nodeId=SEED, depth=6, direction="downstream", includeInferred="false")
    assert [node["id"] for node in downstream["graph"]] == [SEED]

    def impacted(**params: Any) -> set[str]:
        return {asset["id"] for asset in get(read_client, "impact", nodeId=SEED, depth=6, **params)["assets"]}

    assert {STAGING, FACT} <= impacted()
    assert not {STAGING, FACT} & impacted(includeInferred="false")

    def causes(**params: Any) -> str:
        return json.dumps(get(read_client, "root-cause", nodeId=FACT, depth=6, **params))

    assert SEED in causes()
    assert SEED not in causes(includeInferred="false")


def test_an_event_listing_it_as_a_real_input_makes_it_real_whatever_the_order(
    graph: Any, read_client: APIClient
) -> None:
    # A later run of the staging model lists the seed as its input (a model reading `ref` of it, or a newer
    # integration): the edge is real from then on, and arriving first changes nothing.
    later = model(ids(4), "stg_orders", minutes=30, inputs=[table("raw_orders")], output=table("stg_orders"))
    events = [*dbt_run(), *later]
    accept_and_apply(*random.Random(3).sample(events, len(events)), one_by_one=True)
    assert edges(read_client)[(SEED, STG_MODEL)] is False
    assert get(read_client, "jobs/detail", nodeId=STG_MODEL)["inferredInputs"] == []
    assert (SEED, STG_MODEL) in edges(read_client, includeInferred="false")


def test_the_same_graph_in_any_order_of_arrival_and_batching_and_after_a_rebuild(graph: Any) -> None:
    later = model(ids(4), "stg_orders", minutes=30, inputs=[], output=table("stg_orders", derived_from="raw_orders"))
    events = [*dbt_run(), *later]
    accept_and_apply(*events)
    in_one_batch = graph_dump()
    call_command("rebuild_graph", "--no-progress", "--batch-size", "3", stdout=StringIO())
    assert graph_dump() == in_one_batch
    assert "inferred" in json.dumps(in_one_batch, default=str)
    for seed in range(3):
        graph_wipe()
        LineageEvent.objects.all().delete()
        accept_and_apply(*random.Random(seed).sample(events, len(events)), one_by_one=True)
        assert graph_dump() == in_one_batch, seed


def test_an_inferred_input_is_current_while_the_models_runs_name_it_and_stale_once_one_leaves_it_out(
    graph: Any, read_client: APIClient
) -> None:
    # Each completed run of the model confirms the input its column lineage names, so it stays current; a run
    # whose column lineage no longer names the seed retires it, as a real input's would be.
    again = model(ids(5), "stg_orders", minutes=30, inputs=[], output=table("stg_orders", derived_from="raw_orders"))
    accept_and_apply(*dbt_run(), *again)
    assert edges(read_client)[(SEED, STG_MODEL)] is True
    dropped = model(ids(6), "stg_orders", minutes=60, inputs=[], output=table("stg_orders"))
    accept_and_apply(*dropped)
    assert (SEED, STG_MODEL) not in edges(read_client)
    stale = get(read_client, "lineage", nodeId=STAGING, depth=2, direction="upstream", includeStale="true")
    found = [e for node in stale["graph"] for e in node["outEdges"] if e["origin"] == SEED]
    assert [(e["inferred"], e["current"]) for e in found] == [(True, False)]


def test_a_source_that_is_the_output_itself_is_no_inferred_input(graph: Any, read_client: APIClient) -> None:
    # An incremental model's column lineage may name its own table: that draws no job reading what it writes.
    incremental = table("fct_orders", derived_from="fct_orders")
    accept_and_apply(*model(ids(7), "fct_orders", minutes=1, inputs=[table("stg_orders")], output=incremental))
    assert edges(read_client) == {(STAGING, FCT_MODEL): False, (FCT_MODEL, FACT): False}


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_one_run_naming_the_seed_as_input_in_one_event_and_by_column_lineage_in_another_is_real(
    graph: Any, read_client: APIClient, order: tuple[int, ...]
) -> None:
    start, complete = model(
        ids(8), "stg_orders", minutes=1, inputs=[], output=table("stg_orders", derived_from="raw_orders")
    )
    running = dict(start, eventType="RUNNING", inputs=[table("raw_orders")])
    events = [start, running, complete]
    accept_and_apply(*(events[i] for i in order), one_by_one=True)
    assert edges(read_client, STAGING)[(SEED, STG_MODEL)] is False
