"""Where a read's time goes in the graph engine: every statement a lineage, column-lineage, impact or search read
runs, under Cypher's `PROFILE`, summed by statement over a few starts.

For each statement (named as in `docs/cypher.md`): how many times it ran, the rows it answered, its database hits,
the engine's own time (available after plus consumed after, as the driver reports it) and the operators its plan
used, with a flag on the ones that read a
whole label (`NodeByLabelScan`, `AllNodesScan`) or multiply two inputs (`CartesianProduct`). Then the read's wall
time split into the engine's share and the web process's (Python: the driver's decoding, the traversal's
bookkeeping, building the answer). `PROFILE` itself slows the engine down: read the shares, not the totals.
(Neo4j Community's slotted runtime reports no page-cache hits or misses per operator, and has no page-cache
metrics: compare the store's size on disk with `server.memory.pagecache.size` instead.)

Loads nothing: point it at a graph `bench/read_api.py` loaded (`--graph-uri`, Neo4j 5; the embedded ArcadeDB
answers `PROFILE` with its own plan format, which this does not read).

    python bench/graph_profile.py --graph-uri bolt://127.0.0.1:7702 --user neo4j --password … \\
        --graph-database lineage --datasets 1000000 --jobs 1000000 --op lineage --depth 5 --starts 20
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.read_api import read_api_client, read_starts  # noqa: E402
from bench.stack_options import stack_options_add  # noqa: E402

# Operators that cost what the graph costs, not what the answer costs.
GRAPH_SIZED = ("NodeByLabelScan", "AllNodesScan", "CartesianProduct", "NodeIndexScan")


@dataclass
class Cost:
    """What one statement cost, summed over its runs."""

    runs: int = 0
    rows: int = 0
    db_hits: int = 0
    engine_ms: float = 0.0
    wall_ms: float = 0.0
    operators: set[str] = field(default_factory=set)


def _walk(plan: dict[str, Any], cost: Cost) -> None:
    cost.db_hits += plan.get("dbHits", 0)
    cost.operators.add(str(plan.get("operatorType", "?")).split("@")[0])
    for child in plan.get("children", []):
        _walk(child, cost)


def statement_names() -> dict[str, str]:
    """Each graph statement's text -> its name in `docs/cypher.md`."""
    from lineage_app.graph.management.commands.cypher_catalog import cypher_statement_names

    return cypher_statement_names()


def profiling(costs: dict[str, Cost], names: dict[str, str]) -> Callable[..., list[dict[str, Any]]]:
    """A `driver.records` that runs each statement under `PROFILE` and adds what it cost to `costs`."""

    def records(tx: Any, query: str, **params: Any) -> list[dict[str, Any]]:
        began = time.perf_counter()
        result = tx.run("PROFILE " + query, params)
        keys = result.keys()
        rows = [dict(zip(keys, record, strict=True)) for record in result]
        summary = result.consume()
        cost = costs.setdefault(names.get(query, query.strip().splitlines()[0][:60]), Cost())
        cost.runs += 1
        cost.rows += len(rows)
        cost.wall_ms += (time.perf_counter() - began) * 1000
        cost.engine_ms += (summary.result_available_after or 0) + (summary.result_consumed_after or 0)
        if summary.profile:
            _walk(summary.profile, cost)
        return rows

    return records


def costs_print(costs: dict[str, Cost], *, reads: int, wall_ms: float) -> None:
    print(f"\n{'statement':<58}{'runs':>6}{'rows':>8}{'db hits':>11}{'engine ms':>11}{'wall ms':>9}  plan")
    for name, c in sorted(costs.items(), key=lambda item: -item[1].wall_ms):
        flags = sorted(op for op in c.operators if op.startswith(GRAPH_SIZED))
        print(
            f"{name[:57]:<58}{c.runs:>6}{c.rows:>8}{c.db_hits:>11}{c.engine_ms:>11.0f}{c.wall_ms:>9.0f}  "
            + " ".join(sorted(c.operators))
            + (f"  <-- {', '.join(flags)}" if flags else "")
        )
    engine = sum(c.engine_ms for c in costs.values())
    in_statements = sum(c.wall_ms for c in costs.values())
    print(
        f"\n{reads} reads, {wall_ms:.0f} ms in all ({wall_ms / reads:.1f} ms a read): statements "
        f"{in_statements:.0f} ms (of which the engine reports {engine:.0f} ms), the rest in the web process "
        f"{wall_ms - in_statements:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--op", default="lineage", choices=["lineage", "column", "impact", "search"])
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--direction", default="both", choices=["upstream", "downstream", "both"])
    parser.add_argument("--starts", type=int, default=20, help="random starts (the first of `bench/read_api.py`'s)")
    parser.add_argument("--start", action="append", default=[], help="a node id to start from (repeatable)")
    stack_options_add(parser)
    args = parser.parse_args()
    if not args.graph_uri:
        parser.error("give --graph-uri: PROFILE is read from a Neo4j plan")
    with read_api_client(cache=Path("/nonexistent"), heap="1g", stack=args):
        from lineage_app.explorer.selectors.lineage import column_lineage_for_node, lineage_for_node
        from lineage_app.explorer.selectors.search import node_search
        from lineage_app.reports.selectors import impact_report

        # The same starts as `bench/read_api.py`.
        datasets, columns, texts = read_starts(
            datasets=args.datasets, jobs=args.jobs, samples=args.starts, seed=args.seed
        )

        reads: dict[str, tuple[list[str], Callable[[str], Any]]] = {
            "lineage": (
                datasets,
                lambda n: lineage_for_node(node_id=n, depth=args.depth, direction=args.direction),
            ),
            "column": (
                columns,
                lambda n: column_lineage_for_node(node_id=n, depth=args.depth, direction=args.direction),
            ),
            "impact": (datasets, lambda n: list(impact_report(node_ids=[n], depth=args.depth).rows())),
            "search": (
                [q for kind in texts.values() for q in kind],
                lambda q: node_search(q=q, types=["dataset", "job", "field", "run"], limit=20),
            ),
        }
        starts, read = reads[args.op]
        starts = args.start or starts
        costs: dict[str, Cost] = {}
        records = profiling(costs, statement_names())
        patched = _patch(records)
        try:
            read(starts[0])  # each PROFILE statement planned once, connections open
            costs.clear()
            each: list[tuple[float, int, int, str]] = []  # per start: wall ms, statements, db hits, start
            for start in starts:
                runs, hits = sum(c.runs for c in costs.values()), sum(c.db_hits for c in costs.values())
                began = time.perf_counter()
                read(start)
                took = (time.perf_counter() - began) * 1000
                each.append(
                    (
                        took,
                        sum(c.runs for c in costs.values()) - runs,
                        sum(c.db_hits for c in costs.values()) - hits,
                        start,
                    )
                )
            wall_ms = sum(took for took, *_ in each)
        finally:
            for module, original in patched:
                module.records = original
        print(f"{args.op} depth {args.depth}, {len(starts)} starts, graph {args.graph_uri}")
        costs_print(costs, reads=len(starts), wall_ms=wall_ms)
        print("\nslowest starts (wall ms under PROFILE, statements, db hits):")
        for took, runs, hits, start in sorted(each, reverse=True)[:5]:
            print(f"  {took:7.1f} ms {runs:4d} statements {hits:8d} db hits  {start}")


def _patch(records: Callable[..., Any]) -> list[tuple[Any, Any]]:
    """Put `records` in place of `driver.records` in every loaded module that imported it."""
    from lineage_app.graph import driver

    original = driver.records
    patched = []
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("lineage_app") and getattr(module, "records", None) is original:
            patched.append((module, original))
            module.records = records  # type: ignore[attr-defined]
    return patched


if __name__ == "__main__":
    main()
