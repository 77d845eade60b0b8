"""Render benchmark for the lineage explorer: time from navigation to a 1,000-node graph laid out and drawn.

Serves the UI's test build (`frontend/dist-test`, `make frontend`: the production build with the test
hooks this reads on `window`, which `frontend/dist` does not have) from a small local HTTP server that answers
`/static/...` with the build and every other path with `index.html`, as Django does. The read API
is NOT involved: Playwright intercepts `GET /api/v1/lineage` in the page (route fulfilment) and
answers a synthetic lineage response of N nodes (datasets and jobs alternating along fan-out trees
with some fan-in), because this measures the browser side only: fetch handling, merging, the
layout in the Web Worker, and Cytoscape drawing the canvas.

Names are shaped like the example pipeline's by default (`--names real`: datasets named by long
lake paths in the `file` namespace, action jobs `<app>.write_parquet.<table>` of a few applications);
`--names short` gives the old `table_0001` / `job_0001`.

Each run opens a fresh browser context on `/lineage?nodeId=...&depth=20&all=1` (every node drawn),
and reads `window.__tributaryRendered`: the `performance.now()` (milliseconds since navigation
start) at the first frame drawn after the preset layout was applied. It prints every run and the
median (>= 5 runs), then the frame intervals while wheel-zooming the drawn graph, then the same
first-render time for the default view of such an answer (grouped into clusters), then the column view's: a
synthetic column lineage of 200 fields across 20 datasets (`GET /api/v1/column-lineage` and the dataset's
`GET /api/v1/datasets/detail` answered in the page the same way), from navigation to its cards drawn.

    .venv/bin/python bench/render_lineage.py [--nodes 1000] [--runs 7] [--names real|short] [--dist DIR]
        [--fields 200] [--datasets 20]

`--dist` serves another build (for example one of an earlier commit) to compare in the same run: a test
build (`npm run build:test`), or a production build of a commit from before the hooks left it.

Needs Debian's chromium at /usr/bin/chromium (scripts/test_services.sh installs it) and the
`playwright` package from requirements.txt; no browser is downloaded.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser.chromium import chromium_launch  # noqa: E402  (after the repository root is importable)

DIST = ROOT / "frontend" / "dist-test"
STATES = ["COMPLETED", "COMPLETED", "COMPLETED", "FAILED", "RUNNING", "ABORTED", None]


LAKE = "/var/lib/tributary/example-data/lake"
LAYERS = ("raw", "bronze", "silver", "gold/finance", "quality")
APPS = ("ingest_orders", "clean_orders", "daily_revenue", "validate_orders", "customer_360", "refunds_daily")


def node_ids(nodes: int, names: str) -> list[str]:
    """Dataset and job ids alternating; `real` ones look like the example pipeline's."""
    if names == "short":
        return [f"dataset:bench:table_{i:04d}" if i % 2 == 0 else f"job:bench:job_{i:04d}" for i in range(nodes)]
    ids = []
    for i in range(nodes):
        table = f"orders_{i:04d}_clean"
        if i % 2 == 0:
            ids.append(f"dataset:file:{LAKE}/{LAYERS[i % len(LAYERS)]}/{table}")
        else:
            ids.append(f"job:spark:{APPS[i % len(APPS)]}.write_parquet.{table}")
    return ids


def synthetic_lineage(nodes: int, names: str = "real") -> dict[str, Any]:
    """`nodes` nodes alternating dataset -> job -> dataset, each parent feeding two children, plus fan-in edges."""
    ids = node_ids(nodes, names)
    edges: set[tuple[int, int]] = set()
    # Keep the bipartite shape: a dataset's children are jobs and a job's are datasets.
    children: dict[int, list[int]] = {i: [] for i in range(nodes)}
    frontier = [0]
    next_id = 1
    while next_id < nodes:
        grown = []
        for parent in frontier:
            for _ in range(2):
                candidates = [c for c in range(next_id, nodes) if c % 2 != parent % 2]
                if not candidates:
                    break
                child = candidates[0]
                if child != next_id:  # swap so ids stay dense
                    ids[child], ids[next_id] = ids[next_id], ids[child]
                child = next_id
                next_id += 1
                edges.add((parent, child))
                children[parent].append(child)
                grown.append(child)
                if next_id >= nodes:
                    break
            if next_id >= nodes:
                break
        frontier = grown or frontier
    for i in range(40, nodes, 9):  # fan-in: a job also reads an older dataset
        if ids[i].startswith("job:"):
            source = next((j for j in range(i - 30, i) if ids[j].startswith("dataset:")), None)
            if source is not None:
                edges.add((source, i))
    ins: dict[int, list[dict[str, str]]] = {i: [] for i in range(nodes)}
    outs: dict[int, list[dict[str, str]]] = {i: [] for i in range(nodes)}
    for origin, destination in sorted(edges):
        edge = {"origin": ids[origin], "destination": ids[destination]}
        outs[origin].append(edge)
        ins[destination].append(edge)
    graph = []
    for i, node_id in enumerate(ids):
        kind, namespace, name = node_id.split(":", 2)
        state = STATES[i % len(STATES)]
        data: dict[str, Any] = {"nodeId": node_id, "namespace": namespace, "name": name}
        if kind == "job":
            data.update(jobType="BATCH", latestRunState=state, latestRunTime="2026-01-05T08:00:00Z")
            if names == "real":
                data["application"] = f"job:spark:{name.split('.', 1)[0]}"
        else:
            data.update(currentVersion="v1", fieldCount=5, lastRunState=state)
        graph.append({"id": node_id, "type": kind.upper(), "data": data, "inEdges": ins[i], "outEdges": outs[i]})
    return {"nodeId": ids[0], "depth": 20, "direction": "both", "graph": graph}


COLUMN_SUBTYPES = (
    ("DIRECT", "IDENTITY"),
    ("DIRECT", "TRANSFORMATION"),
    ("INDIRECT", "JOIN"),
    ("DIRECT", "AGGREGATION"),
)


def synthetic_column_lineage(fields: int, datasets: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """A column-lineage answer of `fields` fields spread over `datasets` datasets in layers of four, each field past
    the first layer derived from two fields of the layer before (transformations of every kind), and the detail of
    the dataset its root field belongs to."""
    per = fields // datasets
    names = [f"{LAKE}/{LAYERS[d // 4 % len(LAYERS)]}/table_{d:02d}" for d in range(datasets)]
    field_ids = [[f"datasetField:file:{names[d]}:column_{f:03d}" for f in range(per)] for d in range(datasets)]
    ins: dict[str, list[dict[str, Any]]] = {fid: [] for ids in field_ids for fid in ids}
    outs: dict[str, list[dict[str, Any]]] = {fid: [] for ids in field_ids for fid in ids}
    for d in range(4, datasets):
        for f in range(per):
            for k, source_dataset in enumerate((d - 4, (d // 4 - 1) * 4 + (d + f) % 4)):
                kind, subtype = COLUMN_SUBTYPES[(d + f + k) % len(COLUMN_SUBTYPES)]
                origin, destination = field_ids[source_dataset][(f + k) % per], field_ids[d][f]
                edge: dict[str, Any] = {
                    "origin": origin,
                    "destination": destination,
                    "job": f"job:spark:{APPS[d % len(APPS)]}",
                    "transformation": kind,
                    "subtype": subtype,
                    "indirect": kind == "INDIRECT",
                    "firstSeen": "2026-01-05T08:00:00Z",
                    "lastSeen": "2026-01-05T08:00:00Z",
                    "current": True,
                    "staleSince": None,
                }
                if edge not in ins[destination]:
                    ins[destination].append(edge)
                    outs[origin].append(edge)
    graph = [
        {
            "id": fid,
            "type": "DATASET_FIELD",
            "data": {"namespace": "file", "dataset": names[d], "name": fid.rsplit(":", 1)[1], "type": "string"},
            "inEdges": ins[fid],
            "outEdges": outs[fid],
        }
        for d in range(datasets)
        for fid in field_ids[d]
    ]
    root = len(names) // 2
    answer = {"nodeId": field_ids[root][0], "depth": 20, "direction": "both", "truncated": False, "graph": graph}
    detail = {
        "id": f"dataset:file:{names[root]}",
        "namespace": "file",
        "name": names[root],
        "facets": {},
        "currentVersion": "v1",
        "fields": [
            {"id": fid, "name": fid.rsplit(":", 1)[1], "type": "string", "current": True} for fid in field_ids[root]
        ],
        "versions": [],
        "owners": [],
        "producers": [],
        "consumers": [],
        "formerProducers": [],
        "formerConsumers": [],
        "lastRuns": [],
        "aliases": [],
    }
    return answer, detail


class AppHandler(SimpleHTTPRequestHandler):
    """`/static/...` from the build, `index.html` for every other path (the SPA's routes)."""

    dist = DIST

    def translate_path(self, path: str) -> str:
        clean = path.split("?", 1)[0]
        if clean.startswith("/static/"):
            return str(self.dist / clean.removeprefix("/static/"))
        return str(self.dist / "index.html")

    def log_message(self, *args: Any) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--names", choices=("real", "short"), default="real")
    parser.add_argument(
        "--dist", type=Path, default=DIST, help="the UI test build to serve (default frontend/dist-test)"
    )
    parser.add_argument("--fields", type=int, default=200, help="the column view's fields")
    parser.add_argument(
        "--datasets", type=int, default=20, help="the datasets the column view's fields are spread over"
    )
    options = parser.parse_args()
    if not (options.dist / "index.html").exists():
        raise SystemExit(f"{options.dist} is not built: run `make frontend`")
    AppHandler.dist = options.dist

    lineage = synthetic_lineage(options.nodes, options.names)
    body = json.dumps(lineage)
    edge_count = sum(len(n["outEdges"]) for n in lineage["graph"])
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(AppHandler, directory=str(options.dist)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/lineage?nodeId={quote(lineage['nodeId'], safe='')}&depth=20"

    times: list[float] = []
    grouped: list[float] = []
    columns: list[float] = []
    frames: list[float] = []
    column_answer, column_detail = synthetic_column_lineage(options.fields, options.datasets)
    column_url = (
        f"http://127.0.0.1:{server.server_port}/lineage?nodeId={quote(column_detail['id'], safe='')}"
        f"&view=column&field={column_answer['graph'][0]['data']['name']}&depth=20&direction=both"
    )
    with sync_playwright() as playwright:
        browser = chromium_launch(playwright)
        print(
            f"chromium {browser.version}; {options.nodes} nodes, {edge_count} edges, {options.names} names, "
            f"{options.runs} runs; build {options.dist}"
        )
        for run in range(options.runs):
            context = browser.new_context(viewport={"width": 1440, "height": 900})
            page = context.new_page()
            page.route(
                "**/api/v1/lineage?*",
                lambda route: route.fulfill(status=200, content_type="application/json", body=body),
            )
            page.goto(f"{base}&direction=both&all=1")
            page.wait_for_function("() => window.__tributaryRendered !== undefined", timeout=60_000)
            rendered = page.evaluate("window.__tributaryRendered")
            drawn = page.evaluate("window.__tributaryGraph.nodeIds().length")
            assert drawn == options.nodes, f"drew {drawn} nodes, expected {options.nodes}"
            times.append(rendered)
            marks = page.evaluate("""() => Object.fromEntries(performance.getEntriesByType('mark')
                .filter(m => m.name.startsWith('tributary:')).map(m => [m.name.slice(10), Math.round(m.startTime)]))""")
            nav = page.evaluate("""() => { const n = performance.getEntriesByType('navigation')[0];
                return {dom: Math.round(n.domContentLoadedEventEnd)}; }""")
            print(
                f"  run {run + 1}: {rendered:7.0f} ms to laid out and drawn  (DOMContentLoaded {nav['dom']}, "
                + ", ".join(f"{k} {v}" for k, v in marks.items())
                + ")"
            )
            if run == options.runs - 1:
                frames = wheel_zoom_frames(page)
                page.screenshot(path=str(ROOT / "test-artifacts" / "render-1000.png")) if (
                    ROOT / "test-artifacts"
                ).exists() else None
            context.close()
            grouped.append(first_render(browser, f"{base}&direction=both", body))
            columns.append(column_first_render(browser, column_url, column_answer, column_detail, options.fields))
        browser.close()
    server.shutdown()
    print(
        f"median: {statistics.median(times):.0f} ms (min {min(times):.0f}, max {max(times):.0f}) from navigation "
        f"to a {options.nodes}-node graph laid out and drawn"
    )
    print(
        f"default view of the same answer (grouped into clusters when large): median "
        f"{statistics.median(grouped):.0f} ms (min {min(grouped):.0f}, max {max(grouped):.0f}) to first drawn"
    )
    print(
        f"column view, {options.fields} fields across {options.datasets} datasets: median "
        f"{statistics.median(columns):.0f} ms (min {min(columns):.0f}, max {max(columns):.0f}) "
        "from navigation to first drawn"
    )
    if frames:
        print(
            f"wheel zoom: median frame interval {statistics.median(frames):.1f} ms, "
            f"p95 {sorted(frames)[int(len(frames) * 0.95) - 1]:.1f} ms over {len(frames)} frames"
        )


def first_render(browser: Any, url: str, body: str) -> float:
    """Milliseconds from navigation to the first frame of the explorer's default view of `body`."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.route(
        "**/api/v1/lineage?*", lambda route: route.fulfill(status=200, content_type="application/json", body=body)
    )
    page.goto(url)
    page.wait_for_function("() => window.__tributaryRendered !== undefined", timeout=60_000)
    rendered = float(page.evaluate("window.__tributaryRendered"))
    context.close()
    return rendered


def json_reply(body: str, route: Any) -> None:
    """Answer an intercepted request with `body` as JSON."""
    route.fulfill(status=200, content_type="application/json", body=body)


def column_first_render(browser: Any, url: str, answer: dict[str, Any], detail: dict[str, Any], fields: int) -> float:
    """Milliseconds from navigation to the first frame of the column view of `answer` (every field drawn)."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    for pattern, reply in (("**/api/v1/column-lineage?*", answer), ("**/api/v1/datasets/detail?*", detail)):
        page.route(pattern, partial(json_reply, json.dumps(reply)))
    page.goto(url)
    page.wait_for_function("() => window.__tributaryRendered !== undefined", timeout=60_000)
    rendered = float(page.evaluate("window.__tributaryRendered"))
    drawn = page.evaluate("window.__tributaryGraph.nodeIds().filter(id => id.startsWith('datasetField:')).length")
    assert drawn == fields, f"the column view drew {drawn} fields, expected {fields}"
    context.close()
    return rendered


def wheel_zoom_frames(page: Any) -> list[float]:
    """Frame intervals (ms) while the mouse wheel zooms in and out over the graph for about a second."""
    page.mouse.move(500, 450)
    page.evaluate("""() => { window.__frames = []; let last = performance.now();
        const tick = (t) => { window.__frames.push(t - last); last = t;
            if (window.__frames.length < 400) requestAnimationFrame(tick); };
        requestAnimationFrame(tick); }""")
    for i in range(30):
        page.mouse.wheel(0, -120 if i % 10 < 5 else 120)
        page.wait_for_timeout(30)
    return page.evaluate("window.__frames.slice(1)")


if __name__ == "__main__":
    main()
