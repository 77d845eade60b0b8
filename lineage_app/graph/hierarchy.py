"""A run's place in its chain of runs (ParentRunFacet `parent` and `root`): root, parent, children, descendants."""

from __future__ import annotations

from typing import Any

from neo4j import ManagedTransaction

from lineage_app.graph.driver import graph_read, records
from lineage_app.graph.model import Label, Rel, key_seek
from lineage_app.graph.traversal import MAX_NESTING

# How many runs below a root a page lists (a DAG run's tasks, their applications and actions).
MAX_DESCENDANTS = 500

_REF = (
    "r.runId AS runId, j.nodeId AS jobId, r.state AS state, r.startedAt AS startedAt, "
    "r.parentRunId AS parentRunId, r.rootRunId AS rootRunId"
)
_ORDER = "ORDER BY coalesce(r.startedAt, ''), r.runId"

# Each run of `$runIds` the graph has, as a reference: its job, state, start, and the parent and root it names.
RUN_REFS = f"""
UNWIND $runIds AS id
MATCH (r:{Label.RUN} {{runId: id}})<-[:{Rel.HAS_RUN}]-(j)
{key_seek("r", Label.RUN, "runId")}
RETURN {_REF}
"""

# The child runs of run `$runId` (those naming it their parent), the first started first.
RUN_CHILDREN = f"""
MATCH (parent:{Label.RUN} {{runId: $runId}})<-[:{Rel.CHILD_OF}]-(r)
{key_seek("parent", Label.RUN, "runId")}
MATCH (j)-[:{Rel.HAS_RUN}]->(r)
RETURN {_REF} {_ORDER}
"""

# The runs naming run `$runId` the root of their chain, the first started first, at most `$limit`.
RUN_ROOTED = f"""
MATCH (r:{Label.RUN} {{rootRunId: $runId}})
{key_seek("r", Label.RUN, "rootRunId")}
MATCH (j:{Label.JOB})-[:{Rel.HAS_RUN}]->(r)
RETURN {_REF} {_ORDER} LIMIT $limit
"""

Ref = dict[str, Any]


def _shown(run: Ref | None) -> Ref | None:
    """A reference as answered: the root it names is the page's `root`, not each reference's."""
    return {name: value for name, value in run.items() if name != "rootRunId"} if run else None


def _refs(tx: ManagedTransaction, run_ids: list[str]) -> dict[str, Ref]:
    return {row["runId"]: row for row in records(tx, RUN_REFS, runIds=run_ids)} if run_ids else {}


def _root(tx: ManagedTransaction, run: Ref) -> Ref | None:
    """The root of `run`'s chain: the root it names, else the first root its ancestors name, else its topmost
    ancestor; None for a run with neither (it is a root itself). Parents are walked because a run whose producer
    sends no `root` (ParentRunFacet before 1-1-0) still has one."""
    named, ancestor = run.get("rootRunId"), None
    for _ in range(MAX_NESTING):
        if named or not (ancestor or run).get("parentRunId"):
            break
        parent_id = (ancestor or run)["parentRunId"]
        ancestor = _refs(tx, [parent_id]).get(parent_id)
        if ancestor is None:
            break
        named = ancestor.get("rootRunId")
    if named:
        return _refs(tx, [named]).get(named)
    return ancestor


def run_hierarchy(*, run_id: str) -> dict[str, Any]:
    """Run `run_id`'s `root`, `parent` and `children`, and its `descendants`: the runs below it that name it as
    their root and any run between (each with its `parentRunId`), whatever arrived first."""

    def work(tx: ManagedTransaction) -> dict[str, Any]:
        run = _refs(tx, [run_id]).get(run_id) or {"runId": run_id}
        parent_id = run.get("parentRunId")
        children = records(tx, RUN_CHILDREN, runId=run_id)
        rooted = {r["runId"]: r for r in records(tx, RUN_ROOTED, runId=run_id, limit=MAX_DESCENDANTS)}
        # A run between (an Airflow task that sent nothing, named only as a Spark application's parent).
        between = {r["parentRunId"] for r in rooted.values() if r["parentRunId"]} - {run_id, *rooted}
        rooted.update(_refs(tx, sorted(between)))
        shown = {c["runId"] for c in children}
        below = sorted(
            (r for r in rooted.values() if r["runId"] not in shown), key=lambda r: (r["startedAt"] or "", r["runId"])
        )
        return {
            "root": _shown(_root(tx, run)),
            "parent": _shown(_refs(tx, [parent_id]).get(parent_id)) if parent_id else None,
            "children": [_shown(c) for c in children],
            "descendants": [_shown(r) for r in below],
        }

    return graph_read(work)
