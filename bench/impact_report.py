"""Benchmark the impact report on the large synthetic graph: API JSON, CSV and PDF for a node with >= 10,000 assets.

Reuses `bench/read_api.py`'s embedded engine and cached database (`bench/synthetic_graph.py`'s graph),
picks the dataset whose downstream (datasets and jobs, within `--depth`) is the smallest that still
reaches `--min-assets`, and times `GET /api/v1/impact` and `/api/v1/impact/report?format=csv|pdf`
through the web process's WSGI application (bearer token), reading each body to its end and dropping
each piece once read, as a server does once it has written it. Then, for JSON and CSV, the heap the
web process's Python allocates at its peak during one more export (`tracemalloc`, which slows that run
down: the timings are of the runs before it), in all and per row, and the web process's resident set at
its peak during another (`VmHWM`, reset before it through `/proc/self/clear_refs`; Linux), above what it
was before that export.

    python bench/impact_report.py                       # 100k datasets / 100k jobs, seed 7
    python bench/impact_report.py --min-assets 100000 --formats json,csv --runs 1
    python bench/impact_report.py --code /path/to/other/checkout   # the same, the web process on that code
    python bench/impact_report.py --datasets 2000 --jobs 2000 --min-assets 500 --runs 3
    python bench/impact_report.py --graph-uri bolt://neo4j:7687 --password … --database-url postgres://…
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import random
import re
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections import deque
from collections.abc import Callable
from functools import partial
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.read_api import ensure_loaded, read_api_client  # noqa: E402  (it puts this checkout first on the path)

# `--code DIR`: the web process runs that checkout's `lineage_app` and `lineage_protocol` (the code before
# a change, say); put first on the path before anything imports them. The bench's own modules stay this checkout's.
if "--code" in sys.argv:
    sys.path.insert(0, str(Path(sys.argv[sys.argv.index("--code") + 1]).resolve()))

from bench.stack_options import stack_options_add, stack_options_describe  # noqa: E402
from bench.synthetic_graph import SyntheticGraph, dataset_id, synthetic_graph_generate  # noqa: E402


def downstream_size(shape: SyntheticGraph, start: int, depth: int, consumers: list[list[int]]) -> int:
    """Datasets and jobs within `depth` hops downstream of dataset `start` (Dataset -> Job -> Dataset)."""
    seen_datasets, seen_jobs = {start}, set()
    frontier: deque[tuple[int, int]] = deque([(start, 0)])
    while frontier:
        i, hops = frontier.popleft()
        if hops + 1 > depth:
            continue
        for j in consumers[i]:
            if j in seen_jobs:
                continue
            seen_jobs.add(j)
            if hops + 2 <= depth:
                for out in shape.job_outputs[j]:
                    if out not in seen_datasets:
                        seen_datasets.add(out)
                        frontier.append((out, hops + 2))
    return len(seen_datasets) - 1 + len(seen_jobs)


def pick_start(shape: SyntheticGraph, *, depth: int, minimum: int, candidates: int) -> tuple[int, int]:
    """A dataset (tried in a seeded random order) with between `minimum` and twice that many downstream."""
    consumers: list[list[int]] = [[] for _ in shape.layer_of_dataset]
    for j, inputs in enumerate(shape.job_inputs):
        for i in inputs:
            consumers[i].append(j)
    rng = random.Random(11)
    best: tuple[int, int] | None = None
    for _ in range(candidates):
        i = rng.randrange(len(shape.layer_of_dataset))
        size = downstream_size(shape, i, depth, consumers)
        if minimum <= size <= 2 * minimum:
            return i, size
        if size >= minimum and (best is None or size < best[1]):
            best = (i, size)
    if best is None:
        raise SystemExit(f"no dataset among {candidates} random ones reaches {minimum} downstream assets")
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--min-assets", type=int, default=10_000)
    parser.add_argument("--candidates", type=int, default=300, help="how many random datasets to try")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--formats", default="json,csv,pdf", help="of json, csv, pdf: the exports measured")
    parser.add_argument("--code", type=Path, default=None, help="the checkout whose lineage_app the web process runs")
    parser.add_argument("--heap", default="4g")
    parser.add_argument("--cache", type=Path, default=None)
    stack_options_add(parser)
    args = parser.parse_args()
    print(stack_options_describe(args))
    cache = args.cache or Path(tempfile.gettempdir()) / f"tributary-bench-{args.datasets}-{args.jobs}-{args.seed}"
    ensure_loaded(cache=cache, datasets=args.datasets, jobs=args.jobs, seed=args.seed, heap=args.heap, stack=args)
    shape = synthetic_graph_generate(datasets=args.datasets, jobs=args.jobs, seed=args.seed)
    start, size = pick_start(shape, depth=args.depth, minimum=args.min_assets, candidates=args.candidates)
    node = dataset_id(start)
    del shape  # millions of objects the server never holds: not there for its collector to walk
    print(f"start {node}: {size} downstream datasets and jobs within depth {args.depth} (plus fields)")

    with read_api_client(cache=cache, heap=args.heap, stack=args) as client:
        print(f"web process: lineage_app from {Path(sys.modules['lineage_app'].__file__ or '').parent.parent}")

        def url(path: str, **params: object) -> str:
            return f"/api/v1/{path}?{urlencode({'nodeId': node, 'depth': args.depth, **params})}"

        def fetch(path: str, **params: object) -> int:
            """The body's size, read to its end and never held whole."""
            status, size = client.get_sent(url(path, **params))
            assert status == 200, status
            return size

        fetch("impact")  # warm the engine's caches and the code paths once
        answer = client.get(url("impact"))
        summary = json.loads(answer.content)["summary"]
        # The body but its `generatedAt`, as a digest: the same on two checkouts when their answers are byte for byte.
        digest = hashlib.sha256(re.sub(rb'"generatedAt":"[^"]*"', b"", answer.content)).hexdigest()[:16]
        del answer  # the bench's copy of the body: not the web process's to hold
        print(f"answer digest (without generatedAt): {digest}")
        rows = summary["total"]
        print(f"report: {rows} assets {summary['byType']}, depth {max(map(int, summary['byDepth']))}")
        formats = args.formats.split(",")
        for label, fmt, path, params in (
            ("API JSON", "json", "impact", {}),
            ("CSV", "csv", "impact/report", {"format": "csv"}),
            ("PDF", "pdf", "impact/report", {"format": "pdf"}),
        ):
            if fmt not in formats:
                continue
            timings, sizes = [], []
            for _ in range(args.runs):
                began = time.perf_counter()
                sizes.append(fetch(path, **params))
                timings.append(time.perf_counter() - began)
            median = statistics.median(timings)
            print(
                f"  {label:<8} median {median:6.2f} s   min {min(timings):6.2f} s   "
                f"max {max(timings):6.2f} s   {sizes[-1] / 1e6:6.1f} MB   {rows / median:8.0f} rows/s",
                flush=True,
            )
            if fmt != "pdf":  # the PDF is built in memory (docs/impact.md)
                peak = heap_peak(partial(fetch, path, **params))
                print(f"  {'':<8} heap peak {peak / 1e6:6.1f} MB   {peak / rows:6.0f} bytes a row", flush=True)
                if (rss := rss_peak(partial(fetch, path, **params))) is not None:
                    print(f"  {'':<8} RSS peak {rss[1] / 1e6:6.1f} MB, {rss[0] / 1e6:+6.1f} MB over before", flush=True)
        print("\ntargets: JSON < 1 s, PDF < 10 s")


def heap_peak(export: Callable[[], object]) -> int:
    """The most the web process's Python heap grew by while `export` ran (`tracemalloc`)."""
    gc.collect()
    tracemalloc.start()
    try:
        export()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def rss_peak(export: Callable[[], object]) -> tuple[int, int] | None:
    """How far the web process's resident set rose above where it was while `export` ran, and its peak
    (bytes); None where the peak cannot be reset (not Linux)."""
    status = Path("/proc/self/status")
    gc.collect()
    try:
        Path("/proc/self/clear_refs").write_text("5")  # the peak (VmHWM) starts again from now
    except OSError:
        return None

    def kb(field: str) -> int:
        line = next(line for line in status.read_text().splitlines() if line.startswith(field + ":"))
        return int(line.split()[1]) * 1024

    before = kb("VmRSS")
    export()
    peak = kb("VmHWM")
    return peak - before, peak


if __name__ == "__main__":
    main()
