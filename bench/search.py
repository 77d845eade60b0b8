"""Benchmark search on a large synthetic graph: the name statements as they were before tiers (every match of
`searchName CONTAINS $q` ranked, kept in this script; and before `searchName`, `toLower(n.name)` over every node of
the label) against today's tiers (exact, prefix, substring, each reading at most a window, none after the tier
that fills the page); then median / p95 of `node_search` of another checkout (`--baseline`, say a worktree of the
commit before) against this one's, on the same graph, by kind of query.

Loads `bench/synthetic_graph.py`'s graph into the embedded ArcadeDB as `bench/read_api.py` does (a cached
database directory of its own), or into the empty Neo4j that `--graph-uri` names, then gives it what producers
send and search now reads: every dataset, job and run a `facetsJson` like a real one (documentation, SQL, a
processing engine; a `tags` facet on one in `--tagged`), and the Tag nodes apply writes for them, and `--owners`
owners each owning datasets and jobs (one in `--owned`). Then times, in process:

- `name`: substrings of dataset and job names (`ds123`, `job45`: a few matches) and field names (`col2`: the exact
  name of a fifth of all fields);
- `broad`: texts that tens of thousands of names match, as a prefix (`col`, `ds1`, `job2`) or only inside
  (`ol2`, `b1`);
- `runId`: a run's id (a unique-index lookup);
- `tag`: `tier:gold`, `pii`, `domain:…`;
- `owner`: an owner's name (`team-17`);
- `tag:…`, `owner:…`: the same, searching only tags or only owners.

`--baseline DIR` times the `node_search` of the checkout at DIR in a child process of its own (its own code and
Django settings, the same graph), query by query interleaved with this checkout's, and counts the queries whose
pages hold the same nodes in the same order.

    python bench/search.py --datasets 100000 --jobs 100000 --samples 100
    python bench/search.py --datasets 5000 --jobs 5000 --samples 20      # a quick look
    git worktree add /tmp/search-before <commit>
    python bench/search.py --datasets 100000 --jobs 100000 --samples 100 --kinds name,broad \
        --baseline /tmp/search-before --graph-uri bolt://127.0.0.1:7687 --user neo4j --password … \
        --graph-database lineage
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.read_api import DATABASE, PASSWORD, Engine, ensure_loaded, percentiles, read_api_client  # noqa: E402
from bench.stack_options import stack_options_add, stack_options_describe  # noqa: E402
from lineage_app.graph.driver import QUIET_NOTIFICATIONS  # noqa: E402

DECORATION = 3  # bumped when what `decorate` writes changes, so a cached graph is decorated again
DOMAINS = ["finance", "marketing", "sales", "logistics", "support"]
KINDS = ("name", "broad", "runId", "tag", "owner", "tag:…", "owner:…")
LIMIT = 20


def scanning_search(label: str, *extra: str) -> str:
    """A name statement as it was before `searchName` (`graph.reads._search`): every node of the label."""
    returned = ", ".join(("n.nodeId AS id", "n.namespace AS namespace", "n.name AS name", *extra))
    return f"""
MATCH (n:{label}) WHERE toLower(n.name) CONTAINS $q
WITH n, CASE WHEN toLower(n.name) = $q THEN 0 WHEN toLower(n.name) STARTS WITH $q THEN 1 ELSE 2 END AS rank
RETURN {returned}, rank ORDER BY rank, size(n.name), n.nodeId LIMIT $limit
"""


SCANNING_SEARCH = [
    scanning_search("Dataset"),
    scanning_search("Job", "n.key AS key", "elementId(n) AS elementId"),
    scanning_search("Field", "n.dataset AS dataset"),
    """
MATCH (a:DatasetAlias) WHERE toLower(a.name) CONTAINS $q AND a.canonicalKey IS NOT NULL
MATCH (n:Dataset {key: a.canonicalKey})
WITH n, a, CASE WHEN toLower(a.name) = $q THEN 0 WHEN toLower(a.name) STARTS WITH $q THEN 1 ELSE 2 END AS rank
RETURN n.nodeId AS id, n.namespace AS namespace, n.name AS name, min(rank) AS rank, min(a.name) AS alias
ORDER BY rank, id LIMIT $limit
""",
]


def ranked_search(label: str, *extra: str) -> str:
    """A name statement as it was before tiers (`graph.reads._search`): every match ranked, then the page cut."""
    returned = ", ".join(("n.nodeId AS id", "n.namespace AS namespace", "n.name AS name", *extra))
    return f"""
MATCH (n:{label}) WHERE n.searchName CONTAINS $q
WITH n, CASE WHEN n.searchName = $q THEN 0 WHEN n.searchName STARTS WITH $q THEN 1 ELSE 2 END AS rank
RETURN {returned}, rank ORDER BY rank, size(n.name), n.nodeId LIMIT $limit
"""


RANKED_SEARCH = [
    ranked_search("Dataset"),
    ranked_search("Job", "n.key AS key", "elementId(n) AS elementId"),
    ranked_search("Field", "n.dataset AS dataset"),
    """
MATCH (a:DatasetAlias) WHERE a.searchName CONTAINS $q AND a.canonicalKey IS NOT NULL
MATCH (n:Dataset {key: a.canonicalKey})
WITH n, a, CASE WHEN a.searchName = $q THEN 0 WHEN a.searchName STARTS WITH $q THEN 1 ELSE 2 END AS rank
RETURN n.nodeId AS id, n.namespace AS namespace, n.name AS name, min(rank) AS rank, min(a.name) AS alias
ORDER BY rank, id LIMIT $limit
""",
]

# A child process that answers `node_search` of the checkout it runs in (its working directory), one JSON line
# per query read on stdin, timed inside it: `{"seconds", "ids", "more"}`.
BASELINE = """
import json, sys, time
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from lineage_app.explorer.selectors.search import SEARCH_TYPES, node_search
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    asked = json.loads(line)
    began = time.perf_counter()
    answer = node_search(q=asked["q"], types=list(SEARCH_TYPES), limit=asked["limit"])
    seconds = time.perf_counter() - began
    ids = [hit["id"] for hit in answer["results"]]
    print(json.dumps({"seconds": seconds, "ids": ids, "more": answer.get("more")}), flush=True)
"""


class Baseline:
    """`node_search` of the checkout at `root`, in a child process on the graph this process reads (`NEO4J_*`)."""

    def __init__(self, root: Path) -> None:
        self.var = Path(tempfile.mkdtemp(prefix="tributary-bench-baseline-"))
        env = {
            **os.environ,
            "TRIBUTARY_VAR_DIR": str(self.var),
            "DATABASE_URL": f"sqlite:///{self.var / 'baseline.sqlite3'}",
            "PYTHONPATH": str(root),
        }
        self.process = subprocess.Popen(
            [sys.executable, "-c", BASELINE],
            cwd=root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self._read()

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the baseline's search process exited")
        return dict(json.loads(line))

    def search(self, q: str) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"q": q, "limit": LIMIT}) + "\n")
        self.process.stdin.flush()
        return self._read()

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)
        shutil.rmtree(self.var, ignore_errors=True)


def _facets(rng: random.Random, *, tagged: bool, kind: str) -> str:
    """A node's facets as JSON text, the size and shape of a real producer's."""
    facets: dict[str, Any] = {
        "documentation": {"_producer": "bench", "description": f"The {kind} " + "lorem ipsum dolor " * 12},
        "processing_engine": {"_producer": "bench", "name": "spark", "version": "3.5.1"},
    }
    if kind == "job":
        facets["sql"] = {"_producer": "bench", "query": "SELECT id, amount FROM raw.orders WHERE amount > 0 " * 3}
    if tagged:
        tags = [
            {"key": "tier", "value": rng.choice(["gold", "silver", "bronze"]), "source": "DBT"},
            {"key": "domain", "value": rng.choice(DOMAINS), "source": "DBT"},
        ]
        if rng.random() < 0.3:
            tags.append({"key": "pii", "value": "true", "source": "USER"})
        facets["tags"] = {"_producer": "bench", "tags": tags}
    return json.dumps(facets, sort_keys=True)


@contextmanager
def bench_graph(*, cache: Path, heap: str, stack: argparse.Namespace) -> Iterator[tuple[Any, str]]:
    """A driver of the benchmark's graph and its database: `--graph-uri`'s, else the embedded engine on the cache."""
    from neo4j import GraphDatabase

    if stack.graph_uri:
        with GraphDatabase.driver(
            stack.graph_uri,
            auth=(stack.user, stack.password),
            notifications_disabled_classifications=QUIET_NOTIFICATIONS,
        ) as driver:
            yield driver, stack.graph_database
        return
    with (
        Engine(cache / "graph", heap) as engine,
        GraphDatabase.driver(
            engine.uri, auth=("root", PASSWORD), notifications_disabled_classifications=QUIET_NOTIFICATIONS
        ) as driver,
    ):
        yield driver, DATABASE


def decorate(
    *, cache: Path, heap: str, seed: int, tagged: float, owners: int, owned: float, stack: argparse.Namespace
) -> None:
    """Give the graph facets, tags and owners (once per cache and settings; on `--graph-uri`, once per graph)."""
    from lineage_app.graph.projection import tag_texts
    from lineage_app.graph.schema import SCHEMA_STATEMENTS

    marker = cache / "search-decorated.json"
    shape = {"seed": seed, "tagged": tagged, "owners": owners, "owned": owned, "decoration": DECORATION}
    rng = random.Random(seed)
    began = time.monotonic()
    with bench_graph(cache=cache, heap=heap, stack=stack) as (driver, database):
        # The Tag key's constraint and the search names' text indexes, if the graph was loaded before them.
        for statement in SCHEMA_STATEMENTS:
            driver.execute_query(statement, database_=database)
        if stack.graph_uri:
            driver.execute_query("CALL db.awaitIndexes(3600)", database_=database)
            owned_before = driver.execute_query("MATCH (o:Owner) RETURN count(o) AS n", database_=database)
            if owned_before.records[0]["n"]:
                print(f"reusing the decorated graph in {stack.graph_uri}")
                return
        elif marker.exists() and json.loads(marker.read_text()) == shape:
            print("reusing the decorated graph")
            return

        def write(query: str, rows: list[dict[str, Any]]) -> None:
            for start in range(0, len(rows), 5000):
                driver.execute_query(query, rows=rows[start : start + 5000], database_=database)

        for label, kind, key in (("Dataset", "dataset", "key"), ("Job", "job", "key"), ("Run", "run", "runId")):
            keys = [
                r["k"]
                for r in driver.execute_query(f"MATCH (n:{label}) RETURN n.{key} AS k", database_=database).records
            ]
            rows = [{"k": k, "f": _facets(rng, tagged=rng.random() < tagged, kind=kind)} for k in keys]
            for row in rows:
                row["t"] = tag_texts(json.loads(row["f"]))  # the current tags the writes keep beside the facets
            write(
                f"UNWIND $rows AS row MATCH (n:{label} {{{key}: row.k}}) SET n.facetsJson = row.f, n.tags = row.t", rows
            )
            # The Tag nodes and edges the projection writes for a `tags` facet.
            tag_rows = [{"k": row["k"], "t": tag} for row in rows for tag in row["t"]]
            write(
                f"UNWIND $rows AS row MATCH (n:{label} {{{key}: row.k}}) MERGE (t:Tag {{key: row.t}}) "
                "MERGE (n)-[:TAGGED]->(t)",
                tag_rows,
            )
            if label != "Run":
                chosen = [{"k": k, "o": f"team-{rng.randrange(owners)}"} for k in keys if rng.random() < owned]
                write(
                    f"UNWIND $rows AS row MATCH (n:{label} {{key: row.k}}) MERGE (o:Owner {{name: row.o}}) "
                    "ON CREATE SET o.kind = 'TEAM' MERGE (n)-[e:OWNED_BY {source: 'event', role: 'OWNER'}]->(o)",
                    chosen,
                )
    if not stack.graph_uri:
        marker.write_text(json.dumps(shape))
    print(f"decorated in {time.monotonic() - began:.0f}s")


def timed(call: Callable[[], Any]) -> tuple[float, int]:
    began = time.perf_counter()
    answer = call()
    return time.perf_counter() - began, len(answer["results"]) if isinstance(answer, dict) else len(answer)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--samples", type=int, default=50, help="queries of each kind")
    parser.add_argument("--tagged", type=float, default=0.05, help="the share of datasets, jobs and runs with tags")
    parser.add_argument("--owners", type=int, default=200)
    parser.add_argument("--owned", type=float, default=0.1, help="the share of datasets and jobs with an owner")
    parser.add_argument("--heap", default="4g")
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"the kinds of query to time, of {','.join(KINDS)}")
    parser.add_argument(
        "--baseline", type=Path, default=None, help="a checkout (worktree) whose node_search to time as before"
    )
    stack_options_add(parser)
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    if unknown := set(kinds) - set(KINDS):
        parser.error(f"unknown --kinds {','.join(sorted(unknown))}")
    print(stack_options_describe(args))
    cache = (
        args.cache or Path(tempfile.gettempdir()) / f"tributary-bench-search-{args.datasets}-{args.jobs}-{args.seed}"
    )
    ensure_loaded(cache=cache, datasets=args.datasets, jobs=args.jobs, seed=args.seed, heap=args.heap, stack=args)
    decorate(
        cache=cache,
        heap=args.heap,
        seed=args.seed,
        tagged=args.tagged,
        owners=args.owners,
        owned=args.owned,
        stack=args,
    )

    with read_api_client(cache=cache, heap=args.heap, stack=args):
        from bench.synthetic_graph import synthetic_run_id
        from lineage_app.explorer.selectors.search import SEARCH_TYPES, SEARCH_WINDOW, node_search
        from lineage_app.graph import reads
        from lineage_app.graph.driver import graph_read, records

        def after(q: str) -> dict[str, Any]:
            return node_search(q=q, types=list(SEARCH_TYPES), limit=LIMIT)

        def statements(texts: list[str], q: str) -> list[dict[str, Any]]:
            """The name statements as they were, one read transaction."""
            return graph_read(lambda tx: [row for text in texts for row in records(tx, text, q=q.lower(), limit=LIMIT)])

        def tiers(q: str) -> list[dict[str, Any]]:
            """Today's name statements, one read transaction, as `node_search` runs them: tier by tier, none after
            the one that fills a page (and one more row)."""
            params = {"q": q.lower(), "limit": LIMIT + 1, "window": SEARCH_WINDOW}
            named = [reads.SEARCH[SEARCH_TYPES[t]] for t in ("dataset", "job", "field")]

            def work(tx: Any) -> list[dict[str, Any]]:
                rows: list[dict[str, Any]] = []
                for rank in range(len(reads.SEARCH_TIERS)):
                    for texts in [*named, reads.SEARCH_DATASET_ALIASES]:
                        rows += records(tx, texts[rank], **params)
                    if len({row["id"] for row in rows}) > LIMIT:
                        break
                return rows

            return graph_read(work)

        def first(rows: list[dict[str, Any]]) -> list[str]:
            """The page those rows make, as `node_search` ranks them (names before aliases at one rank)."""
            best: dict[str, tuple[int, int, int, str]] = {}
            for row in rows:
                order = (row["rank"], "alias" in row, len(row["name"] or ""), row["id"])
                best[row["id"]] = min(best.get(row["id"], order), order)
            return [order[3] for order in sorted(best.values())[:LIMIT]]

        rng = random.Random(args.seed)
        queries = {
            "name": [
                rng.choice(
                    [f"ds{rng.randrange(args.datasets)}", f"job{rng.randrange(args.jobs)}", f"col{rng.randrange(5)}"]
                )
                for _ in range(args.samples)
            ],
            "broad": [rng.choice(["col", "ds1", "job2", "ol2", "b1"]) for _ in range(args.samples)],
            "runId": [synthetic_run_id(args.seed, rng.randrange(args.jobs)) for _ in range(args.samples)],
            "tag": [
                rng.choice(["tier:gold", "pii", f"domain:{rng.choice(DOMAINS)}", "bronze"]) for _ in range(args.samples)
            ],
            "owner": [f"team-{rng.randrange(args.owners)}" for _ in range(args.samples)],
        }
        # What `tag:` and `owner:` ask for: only tags, only owners (before, the same text was a name).
        queries["tag:…"] = [f"tag:{q}" for q in queries["tag"]]
        queries["owner:…"] = [f"owner:{q}" for q in queries["owner"]]
        queries = {kind: texts for kind, texts in queries.items() if kind in kinds}
        after("warm up")
        tiers("warm up")
        statements(RANKED_SEARCH, "warm up")
        # A dataset's or job's name is selective (`ds123`); a field's (`col2`) is shared by a fifth of all fields;
        # the broad texts are matched by tens of thousands, as a prefix (`col`, `ds1`, `job2`) or inside only.
        classes = {
            "name": {"ds, job": ("ds", "job"), "col2": ("col",)},
            "broad": {"prefix": ("col", "ds1", "job2"), "inside": ("ol2", "b1")},
        }
        for kind in ("name", "broad"):
            if kind not in queries:
                continue
            texts = queries[kind]
            print(
                f"\n{kind} statements on {args.datasets} datasets / {args.jobs} jobs, {len(texts)} queries, "
                f"limit {LIMIT}"
            )
            compared: dict[str, list[tuple[str, float, int]]] = {"toLower(n.name) scan": [], "ranked": [], "tiers": []}
            pages: dict[str, tuple[list[str], list[str]]] = {}
            for q in texts:  # interleaved, as below
                compared["toLower(n.name) scan"].append((q, *timed(partial(statements, SCANNING_SEARCH, q))))
                compared["ranked"].append((q, *timed(partial(statements, RANKED_SEARCH, q))))
                compared["tiers"].append((q, *timed(partial(tiers, q))))
                if q not in pages:
                    pages[q] = first(statements(RANKED_SEARCH, q)), first(tiers(q))
            same = [q for q, (ranked, tiered) in pages.items() if ranked == tiered]
            print(f"the same page from ranked and tiers: {len(same)} of {len(pages)} distinct texts")
            for q, (ranked, tiered) in sorted(pages.items()):
                if ranked != tiered:
                    print(
                        f"  {q}: ranked {ranked[:4]}… / tiers {tiered[:4]}…, in both: {len(set(ranked) & set(tiered))}"
                    )
            print(f"{'names':9} {'statements':21} {'median':>9} {'p95':>9} {'max':>9} {'rows (median)':>14}")
            for name, prefixes in {"all": ("",), **classes[kind]}.items():
                for label, timed_queries in compared.items():
                    chosen = [(t, n) for q, t, n in timed_queries if q.startswith(prefixes)]
                    if not chosen:
                        continue
                    median, p95, most = percentiles([t for t, _ in chosen])
                    rows = statistics.median(n for _, n in chosen)
                    print(
                        f"{name:9} {label:21} {median * 1000:8.1f}ms {p95 * 1000:8.1f}ms {most * 1000:8.1f}ms "
                        f"{rows:14.0f}"
                    )

        baseline = Baseline(args.baseline) if args.baseline else None
        try:
            if baseline is not None:
                baseline.search("warm up")
            print(
                f"\nsearch on {args.datasets} datasets / {args.jobs} jobs, {args.samples} queries of each kind, "
                f"limit {LIMIT}"
            )
            if baseline is not None:
                print(f"before: node_search of {args.baseline}; after: this checkout's")
            print(
                f"{'query':9} {'search':8} {'median':>9} {'p95':>9} {'max':>9} {'hits (median)':>14} {'same page':>10}"
            )
            for kind, texts in queries.items():
                # Interleaved, query by query, so a cache warmed by one search helps both alike.
                timings: dict[str, list[tuple[float, int]]] = {"before": [], "after": []}
                same_pages = 0
                for q in texts:
                    if baseline is not None:
                        answer = baseline.search(q)
                        timings["before"].append((answer["seconds"], len(answer["ids"])))
                    began = time.perf_counter()
                    found = after(q)
                    timings["after"].append((time.perf_counter() - began, len(found["results"])))
                    if baseline is not None:
                        same_pages += answer["ids"] == [hit["id"] for hit in found["results"]]
                for label, samples in timings.items():
                    if not samples:
                        continue
                    median, p95, most = percentiles([s for s, _ in samples])
                    hits = statistics.median(n for _, n in samples)
                    page = f"{same_pages}/{len(texts)}" if baseline is not None and label == "after" else ""
                    print(
                        f"{kind:9} {label:8} {median * 1000:8.1f}ms {p95 * 1000:8.1f}ms {most * 1000:8.1f}ms "
                        f"{hits:14.0f} {page:>10}"
                    )
        finally:
            if baseline is not None:
                baseline.close()


if __name__ == "__main__":
    main()
