"""End to end: the example Spark pipeline, through the signing agent, over HTTP, into the graph."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lineage_app.explorer.selectors.jobs_and_runs import run_for_id
from lineage_app.explorer.selectors.lineage import lineage_for_node
from lineage_app.graph.driver import graph_read, records
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from lineage_app.signatures.models import ProducerKey, SignaturePolicy
from lineage_protocol import generate_private_key, private_key_pem, public_key_pem
from tests.browser.example_pipeline import (
    CLEAN_ORDERS_ACTION,
    CLEAN_ORDERS_ADDED_INPUT,
    CLEAN_ORDERS_DROPPED_INPUT,
    CLEAN_ORDERS_KEPT_INPUTS,
)
from tests.conftest import ROOT

pytestmark = [pytest.mark.spark, pytest.mark.django_db(transaction=True)]


def test_the_signed_example_pipeline_lands_verified_in_the_graph(graph, live_server, ingest_token, tmp_path: Path):  # type: ignore[no-untyped-def]
    key = generate_private_key()
    key_path = tmp_path / "agent.key"
    key_path.write_text(private_key_pem(key))
    ProducerKey.objects.create(producer="example pipeline", public_key=public_key_pem(key.public_key()))
    SignaturePolicy.objects.create(namespace="spark", mode=SignaturePolicy.Mode.ENFORCE)

    env = {
        **os.environ,
        "TRIBUTARY_URL": live_server.url,
        "TRIBUTARY_TOKEN": ingest_token,
        "TRIBUTARY_SIGNING_KEY": str(key_path),
    }
    data_dir = tmp_path / "data"
    finished = subprocess.run(
        [sys.executable, "-m", "examples.pipeline", "--data-dir", str(data_dir)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert finished.returncode == 0, finished.stderr[-3000:]
    # The failure by design is reported once, by its cause, not as Spark's stack traces. Spark 3.5 says
    # `java.lang.RuntimeException: negative amount in order 250`, Spark 4 `[USER_RAISED_EXCEPTION] negative
    # amount in order 250 SQLSTATE: P0001`.
    reported = [line for line in finished.stdout.splitlines() if "validate_orders: failed as designed: " in line]
    assert len(reported) == 1, finished.stdout[-3000:]
    assert "negative amount in order 250" in reported[0]
    assert "\tat org.apache.spark" not in finished.stderr, finished.stderr[-3000:]

    ids = list(LineageEvent.objects.order_by("event_time").values_list("id", flat=True))
    assert len(ids) > 20
    events_apply(event_ids=ids)
    statuses = set(LineageEvent.objects.values_list("status", "verification"))
    assert statuses == {("applied", "VERIFIED")}, "every signed event verifies and is applied under enforce"

    silver = f"dataset:file:{data_dir / 'lake/silver/orders_clean'}"
    upstream = lineage_for_node(node_id=silver, depth=6, direction="upstream", level="action")
    upstream_ids = {node["id"] for node in upstream["graph"]}
    assert f"job:spark:{CLEAN_ORDERS_ACTION}" in upstream_ids
    assert any("raw/orders.csv" in i or "raw" in i for i in upstream_ids if i.startswith("dataset:"))

    versions = graph_read(
        lambda tx: records(tx, "MATCH (d:Dataset {nodeId: $id})-[:HAS_VERSION]->(v) RETURN count(v) AS n", id=silver)
    )
    assert versions == [{"n": 2}], "the second clean_orders run changed the schema"

    # The job's two completed runs read different inputs; the job keeps an input edge from each.
    lake = data_dir / "lake"
    reads = graph_read(
        lambda tx: records(
            tx,
            "MATCH (j:Job {nodeId: $job})-[:HAS_RUN]->(r:Run {state: 'COMPLETED'})-[:READ]->(d:Dataset) "
            "RETURN r.runId AS run, r.startedAt AS startedAt, d.name AS input",
            job=f"job:spark:{CLEAN_ORDERS_ACTION}",
        )
    )
    runs: dict[tuple[str, str], set[str]] = {}
    for row in reads:
        runs.setdefault((row["startedAt"], row["run"]), set()).add(row["input"])
    kept = {str(lake / path) for path in CLEAN_ORDERS_KEPT_INPUTS}
    assert [inputs for _, inputs in sorted(runs.items())] == [
        kept | {str(lake / CLEAN_ORDERS_DROPPED_INPUT)},
        kept | {str(lake / CLEAN_ORDERS_ADDED_INPUT)},
    ]
    job_inputs = graph_read(
        lambda tx: records(
            tx,
            "MATCH (d:Dataset)-[:INPUT_TO]->(j:Job {nodeId: $job}) RETURN d.name AS input",
            job=f"job:spark:{CLEAN_ORDERS_ACTION}",
        )
    )
    assert {row["input"] for row in job_inputs} == kept | {
        str(lake / CLEAN_ORDERS_DROPPED_INPUT),
        str(lake / CLEAN_ORDERS_ADDED_INPUT),
    }

    failed = graph_read(
        lambda tx: records(tx, "MATCH (r:Run {state: 'FAILED'}) RETURN r.runId AS runId, r.jobName AS job")
    )
    assert {row["job"] for row in failed} >= {"validate_orders.write_parquet.orders_checked"}
    child = next(row for row in failed if row["job"] == "validate_orders.write_parquet.orders_checked")
    run = run_for_id(run_id=child["runId"])
    assert "negative amount in order 250" in run["stackTrace"]
    assert run["verification"] == "VERIFIED"

    derived = graph_read(
        lambda tx: records(
            tx,
            "MATCH (s:Field)-[e:DERIVES]->(t:Field {name: 'amount_eur'}) "
            "RETURN DISTINCT s.dataset AS dataset, s.name AS source, e.indirect AS indirect",
        )
    )
    sources = {(row["dataset"], row["source"]): row["indirect"] for row in derived}
    orders, rates = str(lake / "bronze/orders"), str(lake / CLEAN_ORDERS_ADDED_INPUT)
    assert {(orders, "amount"), (rates, "rate_to_eur")} <= set(sources)
    assert not sources[(rates, "rate_to_eur")], "the amount is multiplied by the reference rate"
    assert sources[(orders, "currency")], "the rate is looked up by the order's currency: a join"
