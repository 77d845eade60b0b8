"""Benchmark the lineage read API on a large synthetic graph: p50 / p95 in-process and over HTTP, at one size or
several side by side.

Starts its own embedded ArcadeDB on free loopback ports, loads `bench/synthetic_graph.py`'s graph into a cached
database directory (reused by later runs with the same size and seed), or into the empty Neo4j that `--graph-uri`
names (reused when it holds the graph already), then times `--ops` from random start nodes in a child process of
its own (the web process: nothing of the loader in its memory), calling the selectors directly and through the web
process's WSGI application (bearer token), `--ways`:

- `lineage`: `lineage` at `--depths` (5, 10 and 20); `column`: `column-lineage` at `--column-depths` (5 and 10);
- `impact`: `GET /api/v1/impact` at `--impact-depth` (10), the streamed body read to its end (HTTP only);
- `search`: `GET /api/v1/search` (the search box's page, 20) with names drawn from the graph: `exact` (a dataset's
  or job's whole name), `prefix` (about 111 names start with it, at any size), `broad` (`ds1`, `job7`, `col`:
  tens of thousands of names or more) (HTTP only);
- `diff`: `lineage/diff` at `--diff-depth` (10) between `--diff-from` and `--diff-to` (hours after the
  synthetic graph's first instant: by default its edges of the first half of its layers against all of
  them), each start's diff timed next to a plain `lineage` read at the same depth, and their ratio.

Each size's run ends with the web process's RSS after setup and at its peak. `--warm` (with `--graph-uri`) reads the
whole graph once before timing, as the page cache of a server that has answered for a while holds it; `--warm-reads`
(with `--graph-uri`) runs `manage.py warm_graph --no-pages` (the read API's reads, which plan and compile its
statements) in a process of its own before timing, as after a restart that ran it. `--runs 2` times the same reads
twice in the same web process and prints the first run's p50 / p95 over the last's: right after a restart of the
engine, the first run after a restart against a warm one (docs/scale.md: "The first run after a restart").
`--sizes 100000,1000000` measures each size (N datasets and N jobs) in turn and prints them side by side with the
p95 ratio of the last to the first; with `--graph-uri`, one URI per size (comma-separated, same order) and one
`--password` or one per size.

    python bench/read_api.py --datasets 100000 --jobs 100000 --samples 200
    python bench/read_api.py --datasets 2000 --jobs 2000 --samples 20     # a quick look
    python bench/read_api.py --ops impact,diff --depths 10               # lineage in time's figures
    python bench/read_api.py --graph-uri bolt://neo4j:7687 --user neo4j --password … \
        --database-url postgres://postgres@127.0.0.1:5432/bench            # the production shape
    python bench/read_api.py --sizes 100000,1000000 --samples 100 --ways http \
        --ops lineage,column,impact,search --depths 5,10,20 --column-depths 10 --warm \
        --graph-uri bolt://127.0.0.1:7701,bolt://127.0.0.1:7702 --user neo4j --password …,… \
        --graph-database lineage                                          # docs/scale.md
    python bench/read_api.py --datasets 100000 --jobs 100000 --samples 100 --ways http \
        --ops lineage,column,impact,search --depths 5,10,20 --column-depths 10 --warm --warm-reads --runs 2 \
        --graph-uri bolt://127.0.0.1:7760 --user neo4j --password … --graph-database lineage  # after a restart
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.stack_options import stack_options_add, stack_options_describe, stack_options_env  # noqa: E402
from bench.wsgi_client import WsgiClient  # noqa: E402
from lineage_app.graph.driver import QUIET_NOTIFICATIONS  # noqa: E402  (what the product's driver leaves out)

DATABASE, PASSWORD = "lineage", "tributary-embedded"
SERVE = (
    "import sys; from pathlib import Path; "
    "from lineage_app.graph.embedded import EmbeddedEngineConfig, embedded_engine_serve; "
    "embedded_engine_serve(config=EmbeddedEngineConfig(root_path=Path(sys.argv[1]), database=sys.argv[2], "
    "password=sys.argv[3], bolt_port=int(sys.argv[4]), http_port=int(sys.argv[5]), heap=sys.argv[6]))"
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Engine:
    """An embedded ArcadeDB in a child process, serving the database directory under `root`."""

    def __init__(self, root: Path, heap: str) -> None:
        self.root, self.heap = root, heap
        self.bolt_port, self.http_port = free_port(), free_port()
        self.uri = f"bolt://127.0.0.1:{self.bolt_port}"
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Engine:
        from neo4j import GraphDatabase

        self.process = subprocess.Popen(
            [
                sys.executable,
                "-c",
                SERVE,
                str(self.root),
                DATABASE,
                PASSWORD,
                str(self.bolt_port),
                str(self.http_port),
                self.heap,
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                with (
                    GraphDatabase.driver(
                        self.uri, auth=("root", PASSWORD), notifications_disabled_classifications=QUIET_NOTIFICATIONS
                    ) as driver,
                    driver.session(database=DATABASE) as session,
                ):
                    session.run("RETURN 1").consume()
                return self
            except Exception:
                if self.process.poll() is not None:
                    raise RuntimeError("the embedded graph engine exited") from None
                time.sleep(1)
        raise RuntimeError("the embedded graph engine did not answer")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=120)


def graph_warm(stack: argparse.Namespace) -> None:
    """Read the whole graph `--graph-uri` names once (`manage.py warm_graph`'s statements), as a server that has
    answered for a while holds it in its page cache, so that what is timed next is the steady state, not the first
    touch of each page; prints how long it took."""
    from neo4j import GraphDatabase

    from lineage_app.graph.warmup import WARM_STATEMENTS

    began = time.monotonic()
    with GraphDatabase.driver(
        stack.graph_uri, auth=(stack.user, stack.password), notifications_disabled_classifications=QUIET_NOTIFICATIONS
    ) as driver:
        for statement in WARM_STATEMENTS:
            driver.execute_query(statement, database_=stack.graph_database)
    print(f"warmed {stack.graph_uri} in {time.monotonic() - began:.0f}s")


def graph_reads_warm(stack: argparse.Namespace) -> None:
    """Run `manage.py warm_graph --no-pages` against the graph `--graph-uri` names, in a process of its own (with a
    scratch, migrated SQLite database: the job page reads run verification states from it), as an operator runs it
    after a restart; its report is printed as it goes."""
    var = Path(tempfile.mkdtemp(prefix="tributary-bench-warm-"))
    env = {
        **os.environ,
        **stack_options_env(stack),
        "TRIBUTARY_VAR_DIR": str(var),
        "DATABASE_URL": stack.database_url or f"sqlite:///{var / 'warm.sqlite3'}",
    }
    began = time.monotonic()
    try:
        manage = [sys.executable, str(ROOT / "manage.py")]
        subprocess.run([*manage, "migrate", "--verbosity", "0"], env=env, check=True, cwd=ROOT)
        subprocess.run([*manage, "warm_graph", "--no-pages"], env=env, check=True, cwd=ROOT)
    finally:
        shutil.rmtree(var, ignore_errors=True)
    print(f"ran the read warm-up against {stack.graph_uri} in {time.monotonic() - began:.0f}s", flush=True)


def ensure_loaded(
    *, cache: Path, datasets: int, jobs: int, seed: int, heap: str, stack: argparse.Namespace | None = None
) -> None:
    """Load the synthetic graph into `cache` unless a finished load of the same shape is there; with
    `--graph-uri` (`stack`), into that graph unless it holds the synthetic datasets already."""
    from neo4j import GraphDatabase

    from bench.synthetic_graph import SYNTHETIC_MODEL, synthetic_graph_load

    if stack is not None and stack.graph_uri:
        auth = (stack.user, stack.password)
        with GraphDatabase.driver(
            stack.graph_uri, auth=auth, notifications_disabled_classifications=QUIET_NOTIFICATIONS
        ) as driver:
            found = driver.execute_query(
                "MATCH (d:Dataset) RETURN count(d) AS n", database_=stack.graph_database
            ).records[0]["n"]
            if found == datasets:
                print(f"reusing the {found} datasets in {stack.graph_uri}")
            elif found == 0:
                print(f"loading {datasets} datasets / {jobs} jobs into {stack.graph_uri}")
                synthetic_graph_load(
                    driver=driver, database=stack.graph_database, datasets=datasets, jobs=jobs, seed=seed
                )
            else:
                raise SystemExit(f"{stack.graph_uri} holds {found} datasets: give an empty graph database")
        return

    marker = cache / "loaded.json"
    shape = {"datasets": datasets, "jobs": jobs, "seed": seed, "model": SYNTHETIC_MODEL}
    if marker.exists() and json.loads(marker.read_text()) == shape:
        print(f"reusing the loaded graph in {cache}")
        return
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)
    print(f"loading {datasets} datasets / {jobs} jobs into {cache}")
    began = time.monotonic()
    with (
        Engine(cache / "graph", heap) as engine,
        GraphDatabase.driver(
            engine.uri, auth=("root", PASSWORD), notifications_disabled_classifications=QUIET_NOTIFICATIONS
        ) as driver,
    ):
        synthetic_graph_load(driver=driver, database=DATABASE, datasets=datasets, jobs=jobs, seed=seed)
    marker.write_text(json.dumps(shape))
    print(f"loaded in {time.monotonic() - began:.0f}s")


@contextmanager
def graph_settings(*, cache: Path, heap: str, stack: argparse.Namespace | None) -> Iterator[dict[str, str]]:
    """The `NEO4J_*` settings of the graph to read: the one `--graph-uri` names, else the embedded
    engine started on the cached database."""
    if stack is not None and stack.graph_uri:
        yield {k: v for k, v in stack_options_env(stack).items() if k.startswith("NEO4J_")}
        return
    with Engine(cache / "graph", heap) as engine:
        yield {"NEO4J_URI": engine.uri, "NEO4J_DATABASE": DATABASE, "NEO4J_PASSWORD": PASSWORD}


@contextmanager
def read_api_client(*, cache: Path, heap: str, stack: argparse.Namespace | None = None) -> Iterator[WsgiClient]:
    """The synthetic graph (embedded engine on the cache, or `--graph-uri`), Django set up against
    it (with a scratch SQLite database, or `--database-url`), and a client of the web process's
    WSGI application holding a read token."""
    var = Path(tempfile.mkdtemp(prefix="tributary-bench-var-"))
    with graph_settings(cache=cache, heap=heap, stack=stack) as graph:
        os.environ.update(
            {
                "DJANGO_SETTINGS_MODULE": "lineage_app.settings",
                "TRIBUTARY_VAR_DIR": str(var),
                **graph,
                "DATABASE_URL": (stack and stack.database_url) or f"sqlite:///{var / 'bench.sqlite3'}",
            }
        )
        import django

        django.setup()
        from django.core.management import call_command

        from lineage_app.accounts.services import token_create

        call_command("migrate", verbosity=0)
        from lineage_app.process_heap import web_worker_heap_freeze
        from lineage_app.wsgi import application  # the web process's start-up, garbage-collector settings included

        web_worker_heap_freeze()  # what a gunicorn worker does before it serves: the views imported, the heap frozen

        try:
            yield WsgiClient(application, token_create(name="bench", scope="read")[1])
        finally:
            shutil.rmtree(var, ignore_errors=True)


def percentiles(samples: list[float]) -> tuple[float, float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95, ordered[-1]


def _answer(answer: Any) -> Any:
    """The body of what a call returned (an HTTP call returns its response, decoded here)."""
    return answer.json() if hasattr(answer, "json") else answer


def graph_size(body: dict[str, Any]) -> int:
    return len(body["graph"])


def _report(label: str, timings: list[float], sizes: list[int], truncated: int, what: str) -> dict[str, Any]:
    p50, p95, worst = percentiles(timings)
    print(
        f"  {label:<38} p50 {p50:7.1f} ms   p95 {p95:7.1f} ms   max {worst:7.1f} ms   "
        f"{what} p50 {statistics.median(sizes):6.0f} max {max(sizes):5d}   truncated {truncated}/{len(timings)}",
        flush=True,
    )
    return {"label": label, "p50": p50, "p95": p95, "max": worst, "truncated": truncated}


def measure_together(
    calls: list[tuple[str, Callable[[str], Any]]],
    starts: list[str],
    *,
    size: Callable[[dict[str, Any]], int] = graph_size,
    what: str = "nodes",
) -> list[dict[str, Any]]:
    """Time each of `calls` on each start in turn (start by start, so that they share the machine's
    drifts); what a call returns is read after the clock stops (an HTTP call returns its response:
    the client's JSON decoding is not the server's latency)."""
    for _, call in calls:
        call(starts[0])  # warm the path once
    timings: list[list[float]] = [[] for _ in calls]
    sizes: list[list[int]] = [[] for _ in calls]
    truncated = [0 for _ in calls]
    for start in starts:
        for n, (_, call) in enumerate(calls):
            began = time.perf_counter()
            answer = call(start)
            timings[n].append((time.perf_counter() - began) * 1000)
            body = _answer(answer)
            sizes[n].append(size(body))
            truncated[n] += bool(body.get("truncated"))
    return [_report(label, timings[n], sizes[n], truncated[n], what) for n, (label, _) in enumerate(calls)]


def measure(label: str, call: Callable[[str], Any], starts: list[str], **options: Any) -> dict[str, Any]:
    """Time `call` for each start (`measure_together` with one call)."""
    return measure_together([(label, call)], starts, **options)[0]


def ratio_print(label: str, numerator: dict[str, Any], denominator: dict[str, Any]) -> None:
    print(
        f"  {label:<38} p50 {numerator['p50'] / denominator['p50']:5.2f}x   "
        f"p95 {numerator['p95'] / denominator['p95']:5.2f}x",
        flush=True,
    )


OPS = ("lineage", "column", "impact", "search", "diff")
WAYS = ("selector", "http")
# What `search` asks, by kind (`search_queries`); each answered at the search box's page size.
SEARCH_KINDS = ("exact", "prefix", "broad")
SEARCH_LIMIT = 20
# Texts that tens of thousands of names start with at 100k datasets (ten times as many at 1M), and every field's.
BROAD = (*(f"ds{d}" for d in range(1, 10)), *(f"job{d}" for d in range(1, 10)), "col")


def read_starts(
    *, datasets: int, jobs: int, samples: int, seed: int
) -> tuple[list[str], list[str], dict[str, list[str]]]:
    """The reads' random starts in the synthetic graph of `datasets` and `jobs`: `samples` dataset ids, `samples`
    field ids (of datasets some job writes, so that they have column lineage) and `search_queries`' texts. The same
    for the same arguments, so that `bench/graph_profile.py` profiles what this benchmark timed."""
    from bench.synthetic_graph import dataset_id, field_id, synthetic_dataset_layout

    # Only each dataset's layer and field count: the whole generated shape (millions of objects) is the
    # benchmark's, not the server's, and would count in the web process's memory.
    layer_of_dataset, fields_of_dataset = synthetic_dataset_layout(datasets=datasets, seed=seed)
    rng = random.Random(seed + 1)
    dataset_starts = [dataset_id(rng.randrange(datasets)) for _ in range(samples)]
    derived = [i for i, layer in enumerate(layer_of_dataset) if layer > 0]
    field_starts = []
    for _ in range(samples):
        i = rng.choice(derived)
        field_starts.append(field_id(i, rng.randrange(fields_of_dataset[i])))
    return dataset_starts, field_starts, search_queries(datasets=datasets, jobs=jobs, samples=samples, rng=rng)


def search_queries(*, datasets: int, jobs: int, samples: int, rng: random.Random) -> dict[str, list[str]]:
    """`samples` search texts of each of `SEARCH_KINDS`, drawn from the synthetic graph's names: `exact`, a
    dataset's or a job's whole name; `prefix`, one of the longest names with its last two digits dropped (about
    111 names start with it, at any size); `broad`, one of `BROAD`."""
    from bench.synthetic_graph import dataset_name, job_name

    def name(n: int, low: int) -> str:
        if n % 2:
            return job_name(rng.randrange(min(low, jobs - 1), jobs))[1]
        return dataset_name(rng.randrange(min(low, datasets - 1), datasets))[1]

    return {
        "exact": [name(n, 0) for n in range(samples)],
        "prefix": [name(n, max(datasets, jobs) // 10)[:-2] for n in range(samples)],
        "broad": [rng.choice(BROAD) for _ in range(samples)],
    }


def _status(field: str) -> int:
    """A memory field of this process's `/proc/self/status` (`VmRSS`, `VmHWM`), in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    return 0


def rss_now() -> int:
    """This process's resident set size now, in bytes."""
    return _status("VmRSS")


def rss_peak() -> int:
    """This process's peak resident set size since it started, in bytes: `VmHWM`, not `getrusage`'s `ru_maxrss`,
    which Linux carries over from the process that forked it (the benchmark, holding a graph it just loaded)."""
    return _status("VmHWM")


def main() -> None:
    from bench.synthetic_graph import LAYERS

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument(
        "--sizes",
        default=None,
        help="graph sizes to measure side by side, comma-separated (N: N datasets and N jobs); with --graph-uri, "
        "one URI (and one --password, or one for all) per size, in the same order",
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--direction", default="both", choices=["upstream", "downstream", "both"])
    parser.add_argument("--heap", default="4g")
    parser.add_argument("--max-nodes", type=int, default=None, help="override LINEAGE_MAX_NODES")
    parser.add_argument("--ops", default="lineage,column", help=f"what to time, of {','.join(OPS)}")
    parser.add_argument("--ways", default=",".join(WAYS), help="selector (in-process), http (the WSGI app), or both")
    parser.add_argument("--depths", default="5,10,20", help="dataset lineage depths to time")
    parser.add_argument("--column-depths", default="5,10", help="column lineage depths to time")
    parser.add_argument("--impact-depth", type=int, default=10)
    parser.add_argument("--diff-depth", type=int, default=10)
    parser.add_argument("--diff-from", type=float, default=LAYERS // 2, help="hours after the graph's first instant")
    parser.add_argument("--diff-to", type=float, default=LAYERS, help="hours after the graph's first instant")
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="database directory to reuse (default: a temp dir named after the shape; with --sizes, one per size)",
    )
    parser.add_argument(
        "--warm",
        action="store_true",
        help="with --graph-uri: read the whole graph once before timing (the page cache of a server that has run a "
        "while); without it, each start's first reads may come from disk",
    )
    parser.add_argument(
        "--warm-reads",
        action="store_true",
        help="with --graph-uri: run `manage.py warm_graph --no-pages` (the read API's reads: plans and compiled "
        "statements) in a process of its own before timing",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        help="time the same reads this many times in the same web process; with more than one, print the first "
        "run's p50 / p95 over the last's (the first run after a restart of the engine against a warm one)",
    )
    parser.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)  # one size, in its own process
    stack_options_add(parser)
    args = parser.parse_args()
    if args.child is not None:
        measure_size(argparse.Namespace(**json.loads(args.child.read_text())))
        return
    ops, ways = args.ops.split(","), args.ways.split(",")
    if unknown := set(ops) - set(OPS):
        parser.error(f"unknown --ops {','.join(sorted(unknown))}")
    if unknown := set(ways) - set(WAYS):
        parser.error(f"unknown --ways {','.join(sorted(unknown))}")
    shapes = [(int(n), int(n)) for n in args.sizes.split(",")] if args.sizes else [(args.datasets, args.jobs)]
    uris = args.graph_uri.split(",") if args.graph_uri else [None] * len(shapes)
    passwords = args.password.split(",")
    if len(uris) != len(shapes) or len(passwords) not in (1, len(shapes)):
        parser.error("give one --graph-uri per size (and one --password, or one per size)")
    columns = []
    for n, ((datasets, jobs), uri) in enumerate(zip(shapes, uris, strict=True)):
        one = argparse.Namespace(**vars(args))
        one.datasets, one.jobs, one.graph_uri = datasets, jobs, uri
        one.password = passwords[n if len(passwords) > 1 else 0]
        print(stack_options_describe(one))
        cache = args.cache if args.cache and not args.sizes else None
        cache = cache or Path(tempfile.gettempdir()) / f"tributary-bench-{datasets}-{jobs}-{args.seed}"
        if args.cache and args.sizes:
            cache = args.cache / f"{datasets}-{jobs}-{args.seed}"
        ensure_loaded(cache=cache, datasets=datasets, jobs=jobs, seed=args.seed, heap=args.heap, stack=one)
        if args.warm and uri:
            graph_warm(one)
        if args.warm_reads and uri:
            graph_reads_warm(one)
        columns.append((datasets, jobs, uri or "embedded", size_measure(one, cache=cache)))
    if len(columns) > 1 or args.sizes:
        sizes_print(columns)
    print("\ntargets: lineage p95 < 150 ms at depth 10, column lineage p95 < 200 ms")


def size_measure(args: argparse.Namespace, *, cache: Path) -> dict[str, Any]:
    """`measure_size` in a child process of its own, the web process as a server runs it (nothing of the loader
    or of another size in its memory): its figures and its peak RSS."""
    with tempfile.TemporaryDirectory(prefix="tributary-bench-size-") as scratch:
        spec, results = Path(scratch) / "spec.json", Path(scratch) / "results.json"
        spec.write_text(json.dumps({**vars(args), "cache": str(cache), "child": None, "results": str(results)}))
        subprocess.run([sys.executable, __file__, "--child", str(spec)], check=True)
        return json.loads(results.read_text())


def sizes_print(columns: list[tuple[int, int, str, dict[str, Any]]]) -> None:
    """The figures of each size side by side (p50 / p95 in ms), and the last size's p95 over the first's."""
    width = 34
    heads = [f"{d:,} + {j:,}" for d, j, _, _ in columns]
    print("\n" + f"{'':<38}" + "".join(f"{h + ' p50 / p95':>{width}}" for h in heads) + f"{'p95 ratio':>11}")
    by_size = [{row["label"]: row for row in c[3]["rows"]} for c in columns]
    labels = list(dict.fromkeys(label for c in columns for label in (r["label"] for r in c[3]["rows"])))
    for label in labels:
        cells = [size.get(label) for size in by_size]
        text = "".join(f"{_cell(c):>{width}}" for c in cells)
        first, last = cells[0], cells[-1]
        ratio = f"{last['p95'] / first['p95']:.2f}x" if first and last and first["p95"] else "-"
        print(f"  {label:<36}{text}{ratio:>11}")
    mib = 1024 * 1024
    for name, key in (("web process RSS after setup", "rssSetup"), ("web process peak RSS", "rssPeak")):
        text = "".join(f"{f'{c[3][key] / mib:.0f} MiB':>{width}}" for c in columns)
        print(f"  {name:<36}{text}")
    print("  graphs: " + "; ".join(f"{head}: {c[2]}" for head, c in zip(heads, columns, strict=True)))


def _cell(row: dict[str, Any] | None) -> str:
    return f"{row['p50']:.1f} / {row['p95']:.1f} ms" if row else "-"


def measure_size(args: argparse.Namespace) -> None:
    """Time `args.ops` on one loaded graph, in this process (`size_measure`'s child), and write the figures and this
    process's RSS (after setup, and its peak) to `args.results`."""
    ops, ways = args.ops.split(","), args.ways.split(",")
    rows: list[dict[str, Any]] = []
    with read_api_client(cache=Path(args.cache), heap=args.heap, stack=args) as client:
        from django.conf import settings

        from lineage_app.explorer.selectors.lineage import column_lineage_for_node, lineage_for_node

        if args.max_nodes is not None:
            settings.LINEAGE_MAX_NODES = args.max_nodes

        dataset_starts, field_starts, texts = read_starts(
            datasets=args.datasets, jobs=args.jobs, samples=args.samples, seed=args.seed
        )

        def http(path: str, **params: Any) -> Any:
            response = client.get(f"/api/v1/{path}?{urlencode(params)}")
            assert response.status_code == 200, response.content[:300]
            return response

        def lineage_selector(n: str, d: int) -> Any:
            return lineage_for_node(node_id=n, depth=d, direction=args.direction)

        def lineage_http(n: str, d: int) -> Any:
            return http("lineage", nodeId=n, depth=d, direction=args.direction)

        suffix = ""  # which run, when there are several (`--runs`)

        def timed(label: str, calls: Mapping[str, Callable[[str], Any]], starts: list[str], **options: Any) -> None:
            for way in ways:
                if way in calls:
                    name = f"{label} ({'HTTP' if way == 'http' else way}){suffix}"
                    rows.append(measure(name, calls[way], starts, **options))

        rss_setup = rss_now()
        print(
            f"\n{args.datasets} datasets, {args.jobs} jobs; {args.samples} random starts; direction={args.direction}; "
            f"node budget {getattr(settings, 'LINEAGE_MAX_NODES', 2000)}; web process RSS {rss_setup / 2**20:.0f} MiB"
        )
        runs = getattr(args, "runs", 1)
        for run in range(1, runs + 1):
            if runs > 1:
                print(f"\nrun {run} of {runs}", flush=True)
                suffix = f" run {run}"
            if "lineage" in ops:
                for depth in [int(d) for d in args.depths.split(",")]:
                    calls = {"selector": partial(lineage_selector, d=depth), "http": partial(lineage_http, d=depth)}
                    timed(f"lineage depth {depth:>2}", calls, dataset_starts)
            if "column" in ops:
                for depth in [int(d) for d in args.column_depths.split(",")]:

                    def column_selector(n: str, d: int = depth) -> Any:
                        return column_lineage_for_node(node_id=n, depth=d, direction=args.direction)

                    def column_http(n: str, d: int = depth) -> Any:
                        return http("column-lineage", nodeId=n, depth=d, direction=args.direction)

                    timed(
                        f"column lineage depth {depth:>2}",
                        {"selector": column_selector, "http": column_http},
                        field_starts,
                    )
            if "impact" in ops:

                def impact_http(n: str) -> Any:
                    return http("impact", nodeId=n, depth=args.impact_depth)

                def impact_assets(body: dict[str, Any]) -> int:
                    return int(body["summary"]["total"])

                timed(
                    f"impact depth {args.impact_depth:>2}",
                    {"http": impact_http},
                    dataset_starts,
                    size=impact_assets,
                    what="assets",
                )
            if "search" in ops:

                def search_http(q: str) -> Any:
                    return http("search", q=q, limit=SEARCH_LIMIT)

                def hits(body: dict[str, Any]) -> int:
                    return len(body["results"])

                for kind in SEARCH_KINDS:
                    timed(f"search {kind}", {"http": search_http}, texts[kind], size=hits, what="hits")
            if "diff" in ops:
                depth = args.diff_depth
                plain = partial(lineage_selector, d=depth), partial(lineage_http, d=depth)
                rows.extend(diff_measure(args, http, *plain, dataset_starts))
        if runs > 1:
            runs_ratio_print(rows, runs)
        peak = rss_peak()
        print(f"  web process RSS: {rss_setup / 2**20:.0f} MiB after setup, peak {peak / 2**20:.0f} MiB", flush=True)
    Path(args.results).write_text(json.dumps({"rows": rows, "rssSetup": rss_setup, "rssPeak": peak}))


def runs_ratio_print(rows: list[dict[str, Any]], runs: int) -> None:
    """Each read's first run over its last (`--runs`): p50 and p95."""
    by_label = {row["label"]: row for row in rows}
    print(f"\nrun 1 over run {runs} (the first run after a restart against a warm one)", flush=True)
    for row in rows:
        if row["label"].endswith(" run 1") and (last := by_label.get(row["label"][: -len(" run 1")] + f" run {runs}")):
            ratio_print(row["label"][: -len(" run 1")], row, last)


def diff_measure(
    args: argparse.Namespace,
    http: Callable[..., Any],
    lineage_selector: Callable[[str], Any],
    lineage_http: Callable[[str], Any],
    starts: list[str],
) -> list[dict[str, Any]]:
    """`lineage_diff` (selector and `GET /api/v1/lineage/diff`) between two instants of the synthetic
    graph, each start timed next to a plain lineage read (`lineage_selector`, `lineage_http`) at the same depth."""
    from bench.synthetic_graph import T0
    from lineage_app.explorer.selectors.lineage_diff import lineage_diff

    depth = args.diff_depth
    since, until = T0 + timedelta(hours=args.diff_from), T0 + timedelta(hours=args.diff_to)

    def diff_selector(n: str) -> Any:
        return lineage_diff(
            node_id=n, depth=depth, direction=args.direction, level="application", since=since, until=until
        )

    def diff_http(n: str) -> Any:
        instants = {"from": since.isoformat(), "to": until.isoformat()}
        return http("lineage/diff", nodeId=n, depth=depth, direction=args.direction, **instants)

    print(f"\nlineage diff from {since.isoformat()} to {until.isoformat()}, each start next to a plain lineage read")
    checked = [diff_selector(n)["changes"] for n in starts[:20]]
    print(
        "  changes, first 20 starts (p50 / max): "
        + ", ".join(
            f"{name} {statistics.median(len(c[name]) for c in checked):.0f} / {max(len(c[name]) for c in checked)}"
            for name in ("addedNodes", "removedNodes", "addedEdges", "removedEdges")
        )
    )
    rows = []
    for way, diff_call, plain in (
        ("selector", diff_selector, lineage_selector),
        ("HTTP", diff_http, lineage_http),
    ):
        if way.lower() not in args.ways.split(","):
            continue
        diff, lineage = measure_together(
            [
                (f"lineage diff depth {depth:>2} ({way})", diff_call),
                (f"lineage depth {depth:>2} ({way})", plain),
            ],
            starts,
        )
        ratio_print(f"diff / lineage ({way})", diff, lineage)
        rows.append(diff)
    return rows


if __name__ == "__main__":
    main()
