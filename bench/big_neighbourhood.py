"""Benchmark a big neighbourhood: a dataset with 10,000+ consumer jobs, opened and paged over HTTP.

Loads `bench/synthetic_graph.py`'s graph (embedded ArcadeDB in a cached directory of its own, or the
empty graph `--graph-uri` names), gives its dataset `ds0` `--consumers` more consumer jobs
(`hub_consumers_load`, spread over `HUB_NAMESPACES`, one in ten failed), then times through the web
process's WSGI application (bearer token):

- `open`: `GET /api/v1/lineage` of the hub (`--depth`, both directions): clusters, not 10,000 nodes;
- `page`: `GET /api/v1/lineage/neighbours` through one cluster's members to its end, `--limit` a page;
- `search`: the first page of one cluster's members whose name contains a digit string (`q`).

    python bench/big_neighbourhood.py --datasets 100000 --jobs 100000 --consumers 10000
    python bench/big_neighbourhood.py --graph-uri bolt://127.0.0.1:7687 --user neo4j --password … \
        --graph-database lineage
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from neo4j import Driver, GraphDatabase, ManagedTransaction  # noqa: E402

from bench.read_api import DATABASE, PASSWORD, Engine, ensure_loaded, percentiles, read_api_client  # noqa: E402
from bench.stack_options import stack_options_add, stack_options_describe  # noqa: E402
from bench.synthetic_graph import (  # noqa: E402
    LOAD_INPUT_TO,
    LOAD_JOBS,
    batches,
    dataset_id,
    dataset_name,
    latest_run_properties,
)
from lineage_app.graph.driver import QUIET_NOTIFICATIONS  # noqa: E402
from lineage_app.graph.model import Label, NodeType, RunState, natural_key  # noqa: E402
from lineage_app.graph.node_ids import node_id  # noqa: E402

HUB_NAMESPACES = ("hub-airflow", "hub-flink", "hub-spark")
SEEN = "2026-01-02T00:00:00.000000Z"
# How many consumers of a hub `hub_consumers_load` wrote (those in `HUB_NAMESPACES`).
HUB_CONSUMERS = f"""
MATCH (:{Label.DATASET} {{key: $key}})-[:INPUT_TO]->(j:{Label.JOB})
WHERE j.namespace IN $namespaces RETURN count(j) AS n
"""


def hub_consumer_name(k: int) -> tuple[str, str]:
    """Consumer `k`'s namespace and name."""
    return HUB_NAMESPACES[k % len(HUB_NAMESPACES)], f"consumer{k:06d}"


def hub_consumers_load(*, driver: Driver, database: str, hub_key: str, consumers: Iterable[int]) -> None:
    """Give the dataset `hub_key` the consumer jobs numbered `consumers` (each reads it; one in ten failed its
    latest run), in the synthetic graph's shape, by batched `UNWIND` statements. Their runs are not written:
    no read of a neighbourhood looks at them."""
    jobs: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    for k in consumers:
        namespace, name = hub_consumer_name(k)
        state = RunState.FAILED.value if k % 10 == 0 else RunState.COMPLETED.value
        run_id = f"00000000-0000-4000-8000-{k:012d}"
        jobs.append(
            {
                "key": natural_key(namespace, name),
                "nodeId": node_id(NodeType.JOB, namespace, name),
                "namespace": namespace,
                "name": name,
                "first": SEEN,
                "last": SEEN,
                "latestRun": latest_run_properties(run_id, state, SEEN),
            }
        )
        edges.append(
            {
                "a": hub_key,
                "b": natural_key(namespace, name),
                "first": SEEN,
                "last": SEEN,
                "confirmedOrder": SEEN,
                "confirmedBy": run_id,
                "confirmedAt": SEEN,
            }
        )
    with driver.session(database=database) as session:
        for statement, rows in ((LOAD_JOBS, jobs), (LOAD_INPUT_TO, edges)):
            for batch in batches(rows):

                def write(tx: ManagedTransaction, b: list[dict[str, Any]] = batch, s: str = statement) -> None:
                    tx.run(s, rows=b).consume()

                session.execute_write(write)


def hub_ensure(*, driver: Driver, database: str, hub_key: str, consumers: int) -> None:
    """Load the hub's consumers unless they are there; a graph with some other number of them is refused."""
    found = driver.execute_query(
        HUB_CONSUMERS, key=hub_key, namespaces=list(HUB_NAMESPACES), database_=database
    ).records[0]["n"]
    if found == consumers:
        print(f"reusing the hub's {found} consumers")
        return
    if found:
        raise SystemExit(f"the hub has {found} consumers already, not {consumers}: give an empty graph database")
    began = time.monotonic()
    hub_consumers_load(driver=driver, database=database, hub_key=hub_key, consumers=range(consumers))
    print(f"gave the hub {consumers} consumers in {time.monotonic() - began:.0f}s")


def timed(label: str, calls: list[Any]) -> None:
    """Run each of `calls` (no arguments, answering a response) in turn and print p50 / p95 / max in ms."""
    calls[0]()  # warm the path once
    timings = []
    for call in calls:
        began = time.perf_counter()
        call()
        timings.append((time.perf_counter() - began) * 1000)
    p50, p95, worst = percentiles(timings)
    print(f"  {label:<44} p50 {p50:7.1f} ms   p95 {p95:7.1f} ms   max {worst:7.1f} ms   ({len(timings)} calls)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--consumers", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=50, help="times the hub is opened")
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--limit", type=int, default=100, help="members per page")
    parser.add_argument("--heap", default="4g")
    stack_options_add(parser)
    args = parser.parse_args()
    print(stack_options_describe(args))
    cache = Path(tempfile.gettempdir()) / f"tributary-bench-hub-{args.datasets}-{args.jobs}-{args.seed}"
    ensure_loaded(cache=cache, datasets=args.datasets, jobs=args.jobs, seed=args.seed, heap=args.heap, stack=args)
    hub_key = natural_key(*dataset_name(0))
    if args.graph_uri:
        with GraphDatabase.driver(
            args.graph_uri, auth=(args.user, args.password), notifications_disabled_classifications=QUIET_NOTIFICATIONS
        ) as driver:
            hub_ensure(driver=driver, database=args.graph_database, hub_key=hub_key, consumers=args.consumers)
    else:
        with (
            Engine(cache / "graph", args.heap) as engine,
            GraphDatabase.driver(
                engine.uri, auth=("root", PASSWORD), notifications_disabled_classifications=QUIET_NOTIFICATIONS
            ) as driver,
        ):
            hub_ensure(driver=driver, database=DATABASE, hub_key=hub_key, consumers=args.consumers)

    with read_api_client(cache=cache, heap=args.heap, stack=args) as client:
        from django.conf import settings

        def get(path: str, **params: Any) -> dict[str, Any]:
            response = client.get(f"/api/v1/{path}?{urlencode(params)}")
            assert response.status_code == 200, response.content[:300]
            return response.json()

        hub = dataset_id(0)
        first = get("lineage", nodeId=hub, depth=args.depth, direction="both")
        clusters = [c for c in first["clusters"] if c["nodeId"] == hub and c["direction"] == "downstream"]
        size = len(json.dumps(first))
        told = ", ".join(f"{c['count']} {c['namespace']} ({c['failing']} failing)" for c in clusters)
        print(
            f"\nhub {hub}: {sum(c['count'] for c in clusters)} consumers in {len(clusters)} clusters ({told}); "
            f"first answer {len(first['graph'])} nodes + {len(first['clusters'])} clusters, {size} bytes, "
            f"node budget {settings.LINEAGE_MAX_NODES}, threshold {settings.LINEAGE_CLUSTER_THRESHOLD}"
        )
        timed(
            f"open the hub (lineage depth {args.depth}, both)",
            [lambda: get("lineage", nodeId=hub, depth=args.depth, direction="both")] * args.samples,
        )
        cluster = max(clusters, key=lambda c: c["count"])
        params = {"nodeId": hub, "direction": "downstream", "limit": args.limit}
        if cluster["namespace"] is not None:  # else the hub's neighbours in every namespace
            params["namespace"] = cluster["namespace"]
        cursors: list[str | None] = [None]
        while True:  # the cursors, read once untimed, so each page is timed on its own
            page = get("lineage/neighbours", **params, **({"cursor": cursors[-1]} if cursors[-1] else {}))
            if page["next"] is None:
                break
            cursors.append(page["next"])
        timed(
            f"page through {cluster['count']} members ({args.limit} a page)",
            [lambda c=c: get("lineage/neighbours", **params, **({"cursor": c} if c else {})) for c in cursors],
        )
        timed(
            "search in the cluster (q=000, first page)",
            [lambda: get("lineage/neighbours", **params, q="000")] * args.samples,
        )


if __name__ == "__main__":
    main()
