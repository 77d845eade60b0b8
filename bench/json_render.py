"""How long the API takes to write a large lineage answer as JSON: DRF's renderer against the one the API uses.

Builds a lineage answer of `--nodes` nodes (default 2,000, the node budget), each with `--edges` edges
carrying their times, as `GET /api/v1/lineage` answers it, then times each renderer `--runs` times,
interleaved, and prints medians, the answer's size and the ratio. Both must write the same bytes.

    .venv/bin/python bench/json_render.py [--nodes 2000] [--edges 4] [--runs 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lineage_app.settings")

import django

django.setup()

from rest_framework.renderers import JSONRenderer  # noqa: E402

from lineage_app.json_renderer import FastJSONRenderer  # noqa: E402


def lineage_answer(nodes: int, edges: int) -> dict:
    def edge(i: int, k: int) -> dict:
        return {
            "origin": f"dataset:s3://lake/warehouse:sales/orders_{i}",
            "destination": f"job:spark:daily_revenue.create_table.step_{(i + k) % nodes}",
            "firstSeen": "2026-11-01T08:00:00.000000Z",
            "lastSeen": "2026-11-24T08:10:00.000000Z",
            "current": True,
            "staleSince": None,
        }

    graph = [
        {
            "id": f"dataset:s3://lake/warehouse:sales/orders_{i}",
            "type": "DATASET",
            "data": {
                "namespace": "s3://lake/warehouse",
                "name": f"sales/orders_{i}",
                "fieldCount": 12,
                "firstSeen": "2026-11-01T08:00:00.000000Z",
                "lastSeen": "2026-11-24T08:10:00.000000Z",
                "lastRunState": "COMPLETED",
            },
            "inEdges": [edge(i, k) for k in range(edges // 2)],
            "outEdges": [edge(i, k) for k in range(edges - edges // 2)],
        }
        for i in range(nodes)
    ]
    return {"nodeId": graph[0]["id"], "depth": 10, "direction": "both", "truncated": False, "graph": graph}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--edges", type=int, default=4)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    answer = lineage_answer(args.nodes, args.edges)
    renderers = {"DRF JSONRenderer": JSONRenderer(), "FastJSONRenderer (the API's)": FastJSONRenderer()}
    bodies = {name: renderer.render(answer) for name, renderer in renderers.items()}
    if len(set(bodies.values())) != 1:
        raise SystemExit("the renderers wrote different bytes")
    timings: dict[str, list[float]] = {name: [] for name in renderers}
    for _ in range(args.runs):
        for name, renderer in renderers.items():
            began = time.perf_counter()
            renderer.render(answer)
            timings[name].append((time.perf_counter() - began) * 1000)
    size = len(next(iter(bodies.values())))
    print(f"lineage answer: {args.nodes} nodes, {args.nodes * args.edges} edges, {size / 1e6:.2f} MB of JSON")
    medians = {name: statistics.median(times) for name, times in timings.items()}
    for name, median in medians.items():
        print(f"  {name:<30} median {median:6.2f} ms")
    slow, fast = medians.values()
    print(f"  ratio {slow / fast:.1f}x (same bytes, checked)")


if __name__ == "__main__":
    main()
