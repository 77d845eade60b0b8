"""Benchmark lineage with applications: the synthetic graph of `bench/read_api.py`, its jobs grouped into applications.

A copy of `read_api.py`'s cached graph gets one application job per `--actions` consecutive jobs
(namespace `apps`, one run, the parent run of each of its jobs' runs, as the ParentRunFacet
writes it), so most jobs are action jobs. Then `lineage` is timed at action and application
level from random datasets, and from random application jobs (which start from their actions).

    python bench/application_rollup.py --datasets 20000 --jobs 20000 --samples 60
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

from neo4j import ManagedTransaction

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.read_api import ensure_loaded, measure, read_api_client  # noqa: E402

ADD_APPLICATIONS = """
UNWIND $rows AS row
CREATE (app:Job {key: row.key, nodeId: row.nodeId, namespace: 'apps', name: row.name, latestRunId: row.runId,
                 latestRunState: 'COMPLETED'})
CREATE (p:Run {runId: row.runId, nodeId: 'run:' + row.runId, state: 'COMPLETED'})
CREATE (app)-[:HAS_RUN]->(p)
WITH p, row
UNWIND row.children AS k
MATCH (:Job {key: k})-[:HAS_RUN]->(r:Run)
CREATE (r)-[:CHILD_OF]->(p)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--actions", type=int, default=4, help="jobs per application")
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--heap", default="4g")
    args = parser.parse_args()
    base = Path(tempfile.gettempdir()) / f"tributary-bench-{args.datasets}-{args.jobs}-{args.seed}"
    ensure_loaded(cache=base, datasets=args.datasets, jobs=args.jobs, seed=args.seed, heap=args.heap)
    cache = base.with_name(base.name + f"-apps{args.actions}")
    shape = {"base": json.loads((base / "loaded.json").read_text()), "actions": args.actions}
    marker = cache / "applications.json"
    fresh = not (marker.exists() and json.loads(marker.read_text()) == shape)
    if fresh:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.copytree(base, cache)

    with read_api_client(cache=cache, heap=args.heap) as client:
        from urllib.parse import urlencode

        from bench.synthetic_graph import dataset_id, job_name
        from lineage_app.explorer.selectors.lineage import lineage_for_node
        from lineage_app.graph.driver import graph_write
        from lineage_app.graph.model import natural_key

        applications = args.jobs // args.actions
        if fresh:
            rng = random.Random(args.seed + 2)
            rows = [
                {
                    "key": natural_key("apps", f"app{a}"),
                    "nodeId": f"job:apps:app{a}",
                    "name": f"app{a}",
                    "runId": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                    "children": [natural_key(*job_name(j)) for j in range(a * args.actions, (a + 1) * args.actions)],
                }
                for a in range(applications)
            ]
            for start in range(0, len(rows), 1000):
                batch = rows[start : start + 1000]

                def add(tx: ManagedTransaction, batch: list[dict[str, Any]] = batch) -> object:
                    return tx.run(ADD_APPLICATIONS, rows=batch).consume()

                graph_write(add)
            marker.write_text(json.dumps(shape))
            print(f"added {applications} applications of {args.actions} jobs each")

        rng = random.Random(args.seed + 1)
        dataset_starts = [dataset_id(rng.randrange(args.datasets)) for _ in range(args.samples)]
        app_starts = [f"job:apps:app{rng.randrange(applications)}" for _ in range(args.samples)]

        def http(**params: object) -> object:
            response = client.get(f"/api/v1/lineage?{urlencode(params)}")
            assert response.status_code == 200, response.content[:300]
            return response

        print(f"\n{args.datasets} datasets, {args.jobs} jobs in {applications} applications; depth {args.depth}")
        for level in ("action", "application"):

            def selector(n: str, level: str = level) -> Any:
                return lineage_for_node(node_id=n, depth=args.depth, direction="both", level=level)

            def over_http(n: str, level: str = level) -> object:
                return http(nodeId=n, depth=args.depth, level=level)

            measure(f"from a dataset, {level} (selector)", selector, dataset_starts)
            measure(f"from a dataset, {level} (HTTP)", over_http, dataset_starts)
            measure(f"from an application, {level} (HTTP)", over_http, app_starts)


if __name__ == "__main__":
    main()
