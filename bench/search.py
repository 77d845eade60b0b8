"""Benchmark search on a large synthetic graph: median / p95 of the name-only search (what search did before it
found run ids, tags and owners) against today's `node_search`, on the same graph, by kind of query.

Loads `bench/synthetic_graph.py`'s graph into the embedded ArcadeDB as `bench/read_api.py` does (a cached
database directory of its own), then gives it what producers send and search now reads: every dataset, job
and run a `facetsJson` like a real one (documentation, SQL, a processing engine; a `tags` facet on one in
`--tagged`), and the Tag nodes apply writes for them, and `--owners` owners each owning datasets and jobs (one in
`--owned`). Then times, in process:

- `name`: substrings of dataset and job names (`ds123`, `job45`) and field names (`col2`);
- `runId`: a run's id (a unique-index lookup);
- `tag`: `tier:gold`, `pii`, `domain:…`;
- `owner`: an owner's name (`team-17`);
- `tag:…`, `owner:…`: the same, searching only tags or only owners.

    python bench/search.py --datasets 100000 --jobs 100000 --samples 100
    python bench/search.py --datasets 5000 --jobs 5000 --samples 20      # a quick look
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.read_api import DATABASE, PASSWORD, Engine, ensure_loaded, percentiles, read_api_client  # noqa: E402

DECORATION = 2  # bumped when what `decorate` writes changes, so a cached graph is decorated again
DOMAINS = ["finance", "marketing", "sales", "logistics", "support"]


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


def decorate(*, cache: Path, heap: str, seed: int, tagged: float, owners: int, owned: float) -> None:
    """Give the cached graph facets, tags and owners (once per cache and settings)."""
    from neo4j import GraphDatabase

    from lineage_app.graph.projection import tag_texts
    from lineage_app.graph.schema import SCHEMA_STATEMENTS

    marker = cache / "search-decorated.json"
    shape = {"seed": seed, "tagged": tagged, "owners": owners, "owned": owned, "decoration": DECORATION}
    if marker.exists() and json.loads(marker.read_text()) == shape:
        print("reusing the decorated graph")
        return
    rng = random.Random(seed)
    began = time.monotonic()
    with Engine(cache / "graph", heap) as engine, GraphDatabase.driver(engine.uri, auth=("root", PASSWORD)) as driver:
        for statement in SCHEMA_STATEMENTS:  # the Tag key's constraint, if the graph was loaded before it
            driver.execute_query(statement, database_=DATABASE)

        def write(query: str, rows: list[dict[str, Any]]) -> None:
            for start in range(0, len(rows), 5000):
                driver.execute_query(query, rows=rows[start : start + 5000], database_=DATABASE)

        for label, kind, key in (("Dataset", "dataset", "key"), ("Job", "job", "key"), ("Run", "run", "runId")):
            keys = [
                r["k"]
                for r in driver.execute_query(f"MATCH (n:{label}) RETURN n.{key} AS k", database_=DATABASE).records
            ]
            rows = [{"k": k, "f": _facets(rng, tagged=rng.random() < tagged, kind=kind)} for k in keys]
            write(f"UNWIND $rows AS row MATCH (n:{label} {{{key}: row.k}}) SET n.facetsJson = row.f", rows)
            # The Tag nodes and edges the projection writes for a `tags` facet.
            tag_rows = [{"k": row["k"], "t": tag} for row in rows for tag in tag_texts(json.loads(row["f"]))]
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
    args = parser.parse_args()
    cache = (
        args.cache or Path(tempfile.gettempdir()) / f"tributary-bench-search-{args.datasets}-{args.jobs}-{args.seed}"
    )
    ensure_loaded(cache=cache, datasets=args.datasets, jobs=args.jobs, seed=args.seed, heap=args.heap)
    decorate(cache=cache, heap=args.heap, seed=args.seed, tagged=args.tagged, owners=args.owners, owned=args.owned)

    with read_api_client(cache=cache, heap=args.heap):
        from bench.synthetic_graph import synthetic_run_id
        from lineage_app.explorer.selectors.search import SEARCH_TYPES, node_search
        from lineage_app.graph import listings

        def before(q: str) -> list[dict[str, Any]]:
            """The name-only search, as `node_search` was: names and dataset aliases."""
            labels = [SEARCH_TYPES[t] for t in ("dataset", "job", "field")]
            return listings.search_rows(q=q, labels=labels, limit=20) + listings.dataset_alias_search_rows(
                q=q, limit=20
            )

        def after(q: str) -> dict[str, Any]:
            return node_search(q=q, types=list(SEARCH_TYPES), limit=20)

        rng = random.Random(args.seed)
        queries = {
            "name": [
                rng.choice(
                    [f"ds{rng.randrange(args.datasets)}", f"job{rng.randrange(args.jobs)}", f"col{rng.randrange(5)}"]
                )
                for _ in range(args.samples)
            ],
            "runId": [synthetic_run_id(args.seed, rng.randrange(args.jobs)) for _ in range(args.samples)],
            "tag": [
                rng.choice(["tier:gold", "pii", f"domain:{rng.choice(DOMAINS)}", "bronze"]) for _ in range(args.samples)
            ],
            "owner": [f"team-{rng.randrange(args.owners)}" for _ in range(args.samples)],
        }
        # What `tag:` and `owner:` ask for: only tags, only owners (before, the same text was a name).
        queries["tag:…"] = [f"tag:{q}" for q in queries["tag"]]
        queries["owner:…"] = [f"owner:{q}" for q in queries["owner"]]
        after("warm up")
        print(f"\nsearch on {args.datasets} datasets / {args.jobs} jobs, {args.samples} queries of each kind, limit 20")
        print(f"{'query':9} {'search':8} {'median':>9} {'p95':>9} {'max':>9} {'hits (median)':>14}")
        for kind, texts in queries.items():
            # Interleaved, query by query, so a cache warmed by one search helps both alike.
            timings: dict[str, list[tuple[float, int]]] = {"before": [], "after": []}
            for q in texts:
                timings["before"].append(timed(partial(before, q)))
                timings["after"].append(timed(partial(after, q)))
            for label, samples in timings.items():
                median, p95, most = percentiles([s for s, _ in samples])
                hits = statistics.median(n for _, n in samples)
                print(
                    f"{kind:9} {label:8} {median * 1000:8.1f}ms {p95 * 1000:8.1f}ms {most * 1000:8.1f}ms {hits:14.0f}"
                )


if __name__ == "__main__":
    main()
