"""Impact and root-cause traversal: every node downstream (or upstream) with its distance and one shortest path.

The walk is the one traversal's (`traversal.graph_walk`: breadth-first, up to two hops per round
trip, `CHUNK` frontier nodes per statement, so no statement's answer grows with the graph). It keeps
only what paths need (each node's distance, parent and the edge it came by); the details of each
asset (names, owners, last run) are read later, one chunk at a time, by `impact_details`, so a
report can be streamed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from neo4j import ManagedTransaction

from lineage_app.graph import impact_queries as q
from lineage_app.graph import reads
from lineage_app.graph.driver import graph_read, records
from lineage_app.graph.model import FAILED_STATES, KEY_SEPARATOR, NOW, Label, Moment, natural_key
from lineage_app.graph.node_ids import node_id_candidate_keys, node_ref_id
from lineage_app.graph.ownership import owners_for
from lineage_app.graph.schema_fields import schema_change
from lineage_app.graph.traversal import (
    CHUNK,
    Edge,
    ElementIds,
    NodeRef,
    Walk,
    application_actions,
    application_of,
    applications_roll_up,
    element_ids,
    graph_walk,
    job_applications,
    node_rows,
)

TYPE_ORDER = {Label.DATASET: 0, Label.JOB: 1, Label.FIELD: 2}


def chunks(items: list[Any], size: int | None = None) -> Iterator[list[Any]]:
    size = size or CHUNK
    for start in range(0, len(items), size):
        yield items[start : start + size]


@dataclass(frozen=True)
class Reach:
    """How a node was first reached: hops from the nearest start, the node before it, the edge between.

    `via` is set for datasets and jobs reached through column lineage: the field they were found by.
    """

    distance: int
    parent: NodeRef | None = None
    edge: tuple[tuple[str, Any], ...] = ()
    via: NodeRef | None = None


@dataclass
class Traversal:
    """Every node reached (starts and column seeds at distance 0) and how; `assets` excludes those.

    `applications` maps each action job reached to its (outermost) application job; once rolled up
    (`traversal.applications_roll_up`), an action job is named by its application in every path, its
    application is reached as its nearest action was, and `assets` lists the application instead.
    """

    starts: list[NodeRef]
    seen: dict[NodeRef, Reach] = field(default_factory=dict)
    applications: dict[NodeRef, NodeRef] = field(default_factory=dict)
    rolled_up: bool = False
    # Stale edges leading on from the nodes reached, left out of the walk (none when it followed them).
    stale_left_out: int = 0
    element_ids: ElementIds = field(default_factory=dict, repr=False)  # the walks' visited set, by element id
    _ids: dict[NodeRef, str] = field(default_factory=dict, repr=False)  # paths share prefixes: name each once
    _chains: dict[NodeRef, tuple[list[str], list[dict[str, Any]]]] = field(default_factory=dict, repr=False)

    def node_id(self, ref: NodeRef) -> str:
        found = self._ids.get(ref)
        if found is None:
            named = application_of(ref, self.applications) if self.rolled_up else ref
            found = self._ids[ref] = node_ref_id(named)
        return found

    def assets(self) -> list[NodeRef]:
        """The reached nodes other than the starts and seeds (and, rolled up, action jobs), by distance,
        kind and id."""
        folded = self.applications if self.rolled_up else {}
        found = [ref for ref, reach in self.seen.items() if reach.distance > 0 and ref not in folded]
        return sorted(found, key=lambda ref: (self.seen[ref].distance, TYPE_ORDER[ref[0]], self.node_id(ref)))

    def actions(self, ref: NodeRef) -> list[str]:
        """The ids of the action jobs reached (not as starts) that the application job `ref` stands for."""
        return sorted(
            node_ref_id(action)
            for action, app in self.applications.items()
            if app == ref and self.seen[action].distance > 0
        )

    def application(self, ref: NodeRef) -> str | None:
        """The id of the application job of the action job `ref`, if it is one."""
        app = self.applications.get(ref)
        return node_ref_id(app) if app is not None else None

    def path(self, ref: NodeRef) -> tuple[list[str], list[dict[str, Any]]]:
        """The node ids from a start to `ref`, and the column edges (job, transformation…) along them."""
        reach = self.seen[ref]
        if reach.via is not None:  # a dataset or job found by its field: the path is the field's
            ids, edges = self._chain(reach.via)
            return [*ids, self.node_id(ref)], list(edges)
        ids, edges = self._chain(ref)
        return list(ids), list(edges)

    def _chain(self, ref: NodeRef) -> tuple[list[str], list[dict[str, Any]]]:
        """`path` without the `via` step, kept per node: a path is its parent's plus one step."""
        found = self._chains.get(ref)
        if found is None:
            step = self.seen[ref]
            ids, edges = self._chain(step.parent) if step.parent is not None else ([], [])
            if ref[0] is Label.FIELD and step.parent is not None:
                properties = {name: value for name, value in step.edge if name not in reads.EDGE_TIMES}
                properties["indirect"] = bool(properties.get("indirect"))
                edges = [*edges, properties]
            found = self._chains[ref] = ([*ids, self.node_id(ref)], edges)
        return found


def _sorted(rows: list[Edge]) -> list[Edge]:
    """Edges in a stable order, so the first to reach a node (its parent on the path) is always the same."""
    return sorted(rows, key=lambda row: (row[0][1], row[1][1], str(row[2])))


def _breadth_first(
    tx: ManagedTransaction,
    traversal: Traversal,
    seeds: list[NodeRef],
    *,
    depth: int,
    direction: str,
    moment: Moment,
) -> None:
    """`graph_walk` from `seeds`, recording how each node was first reached."""
    reached = traversal.element_ids
    reached.update(element_ids(tx, [ref for ref in seeds if ref not in reached]))

    def reach(rows: list[Edge], new: list[NodeRef], distance: int) -> None:
        fresh = set(new)
        for source, target, edge in _sorted(rows):  # the first edge to a node is its parent on the path
            if target in fresh and target not in traversal.seen:
                traversal.seen[target] = Reach(distance, source, edge)

    # Paths need only what each node was reached by: no edge's times.
    walk = Walk(reached=reached)
    graph_walk(tx, walk, starts=seeds, depth=depth, direction=direction, moment=moment, on_hop=reach, times=False)


def _field_seeds(tx: ManagedTransaction, datasets: list[str]) -> list[NodeRef]:
    keys: list[str] = []
    for chunk in chunks(sorted(datasets)):
        keys.extend(records(tx, q.FIELDS_OF_DATASETS, keys=chunk)[0]["keys"])
    return [(Label.FIELD, key) for key in sorted(set(keys))]


def _job_keys(tx: ManagedTransaction, job_ids: set[str]) -> dict[str, str]:
    """The natural key of each `job:<namespace>:<name>` id that names a job (names may hold ':')."""
    candidates: dict[str, str] = {}
    for job in job_ids:
        for key in node_id_candidate_keys(node_id=job, label=Label.JOB):
            candidates.setdefault(key, job)
    found: dict[str, str] = {}
    for chunk in chunks(sorted(candidates)):
        for row in records(tx, reads.FIND_NODES[Label.JOB], keys=chunk):
            found.setdefault(candidates[row["key"]], row["key"])
    return found


def _owners_of_fields(tx: ManagedTransaction, traversal: Traversal) -> None:
    """Datasets that hold an affected field, and the jobs that derive one, are affected too (by that field)."""
    fields = [ref for ref in traversal.assets() if ref[0] is Label.FIELD]
    jobs_by_field: list[tuple[NodeRef, str]] = []
    for ref in fields:
        reach = traversal.seen[ref]
        namespace, dataset, _ = ref[1].split(KEY_SEPARATOR)
        holder = (Label.DATASET, natural_key(namespace, dataset))
        if holder not in traversal.seen:
            traversal.seen[holder] = Reach(reach.distance, via=ref)
        job = dict(reach.edge).get("job")
        if job:
            jobs_by_field.append((ref, job))
    keys = _job_keys(tx, {job for _, job in jobs_by_field})
    for ref, job in jobs_by_field:
        job_ref = (Label.JOB, keys[job]) if job in keys else None
        if job_ref is not None and job_ref not in traversal.seen:
            traversal.seen[job_ref] = Reach(traversal.seen[ref].distance, via=ref)


def impact_traverse(*, starts: list[NodeRef], depth: int, moment: Moment, roll_up: bool = True) -> Traversal:
    """Everything downstream of `starts` within `depth` hops.

    Datasets and jobs start dataset-level lineage (Dataset -> Job -> Dataset, each arrow a hop);
    datasets and fields start column-level lineage (Field -> Field, each derivation a hop; a
    dataset's own fields are its seeds). Datasets holding a derived field, and the jobs deriving
    it, are reported too when a field is the start. An application job starts from its action
    jobs too (at distance 0). With `roll_up`, action jobs are folded into their application job
    (see `Traversal`).
    """

    def work(tx: ManagedTransaction) -> Traversal:
        traversal = Traversal(starts=starts)
        for ref in starts:
            traversal.seen[ref] = Reach(0)
        table_starts = [ref for ref in starts if ref[0] is not Label.FIELD]
        for ref in [ref for ref in table_starts if ref[0] is Label.JOB]:
            for action, action_id in sorted(application_actions(tx, application=ref).items()):
                if action not in traversal.seen:
                    traversal.seen[action] = Reach(0)
                    traversal.element_ids[action] = action_id
                    table_starts.append(action)
        _breadth_first(tx, traversal, table_starts, depth=depth, direction="downstream", moment=moment)
        datasets = [key for label, key in starts if label is Label.DATASET]
        seeds = [ref for ref in starts if ref[0] is Label.FIELD]
        for seed in _field_seeds(tx, datasets) if datasets else []:
            if seed not in traversal.seen:
                traversal.seen[seed] = Reach(0)
                seeds.append(seed)
        _breadth_first(tx, traversal, seeds, depth=depth, direction="downstream", moment=moment)
        if any(ref[0] is Label.FIELD for ref in starts):
            _owners_of_fields(tx, traversal)
        if not moment.stale:
            # Only from nodes the walk went on from: a stale edge beyond the depth was never a path.
            inner = [
                i
                for ref, i in traversal.element_ids.items()
                if ref in traversal.seen and traversal.seen[ref].distance < depth
            ]
            traversal.stale_left_out = _stale_edges_from(tx, inner, moment)
        _find_applications(tx, traversal)
        if roll_up:
            # The actions stay in `seen` (a path may pass through one); `assets` and `node_id` fold them.
            traversal.seen.update(
                applications_roll_up(traversal.seen, traversal.applications, rank=lambda reach: reach.distance)
            )
            traversal.rolled_up = True
        return traversal

    return graph_read(work)


def _stale_edges_from(tx: ManagedTransaction, reached: list[str], moment: Moment) -> int:
    ids = sorted(reached)
    return sum(records(tx, q.STALE_EDGES_FROM, ids=chunk, at=moment.at)[0]["stale"] for chunk in chunks(ids))


def _find_applications(tx: ManagedTransaction, traversal: Traversal) -> None:
    jobs = sorted(ref for ref in traversal.seen if ref[0] is Label.JOB)
    missing = [ref for ref in jobs if ref not in traversal.element_ids]  # found by a field's derivation
    traversal.element_ids.update(element_ids(tx, missing) if missing else {})
    for chunk in chunks([ref for ref in jobs if ref in traversal.element_ids]):
        found = job_applications(tx, jobs={ref: traversal.element_ids[ref] for ref in chunk})
        traversal.applications.update((ref, app) for ref, (app, _) in found.items())


def upstream_traverse(*, start: NodeRef, depth: int, moment: Moment = NOW) -> Traversal:
    """Datasets and jobs upstream of `start` within `depth` hops (Dataset <- Job <- Dataset), over the
    edges `moment` names."""

    def work(tx: ManagedTransaction) -> Traversal:
        traversal = Traversal(starts=[start], seen={start: Reach(0)})
        _breadth_first(tx, traversal, [start], depth=depth, direction="upstream", moment=moment)
        return traversal

    return graph_read(work)


# ---- details, one chunk at a time ----


def impact_details(*, refs: Iterable[NodeRef]) -> dict[NodeRef, dict[str, Any]]:
    """Names, owners and last run of each of `refs` (one chunk); a field has its dataset's owners and run."""
    refs = list(refs)

    def work(tx: ManagedTransaction) -> dict[NodeRef, dict[str, Any]]:
        details: dict[NodeRef, dict[str, Any]] = {}
        fields = sorted(key for label, key in refs if label is Label.FIELD)
        holders = {key: natural_key(*key.split(KEY_SEPARATOR)[:2]) for key in fields}
        datasets = sorted({key for label, key in refs if label is Label.DATASET} | set(holders.values()))
        jobs = sorted(key for label, key in refs if label is Label.JOB)
        for label, keys in ((Label.DATASET, datasets), (Label.JOB, jobs), (Label.FIELD, fields)):
            for chunk in chunks(keys):
                for row in node_rows(tx, statement=q.DETAILS[label], columns=q.DETAIL_COLUMNS[label], keys=chunk):
                    details[(label, row.pop("key"))] = row
        owners = owners_for(tx, refs=[(Label.DATASET, key) for key in datasets] + [(Label.JOB, key) for key in jobs])
        for ref, row in details.items():
            holder = (Label.DATASET, holders[ref[1]]) if ref[0] is Label.FIELD else ref
            row["owners"] = owners.get(holder, [])
            if ref[0] is Label.FIELD:
                run = details.get(holder, {})
                row.update(lastRunState=run.get("lastRunState"), lastRunTime=run.get("lastRunTime"))
        return details

    return graph_read(work)


# ---- root cause: what happened upstream, and when ----


def root_cause_events(*, refs: list[NodeRef]) -> dict[NodeRef, list[dict[str, Any]]]:
    """For each job its failed / aborted runs, for each dataset its schema changes (versions after the first)."""

    def work(tx: ManagedTransaction) -> dict[NodeRef, list[dict[str, Any]]]:
        events: dict[NodeRef, list[dict[str, Any]]] = {ref: [] for ref in refs}
        jobs = sorted(key for label, key in refs if label is Label.JOB)
        for chunk in chunks(jobs):
            for row in records(tx, q.JOB_FAILURES, keys=chunk, states=FAILED_STATES)[0]["rows"]:
                events[(Label.JOB, row["key"])].append(
                    {
                        "kind": "failure",
                        "at": row["at"] or None,
                        "runId": row["runId"],
                        "state": row["state"],
                        "message": row["message"],
                    }
                )
        datasets = sorted(key for label, key in refs if label is Label.DATASET)
        versions: dict[str, list[dict[str, Any]]] = {}
        for chunk in chunks(datasets):
            for row in records(tx, q.VERSIONS_OF_DATASETS, keys=chunk)[0]["rows"]:
                versions.setdefault(row["key"], []).append(row)
        for key, rows in versions.items():
            rows.sort(key=lambda row: (row["order"], row["firstSeen"] or "", row["version"]))
            for before, after in pairwise(rows):
                change = _schema_change(before, after)
                if change is not None:
                    events[(Label.DATASET, key)].append(change)
        for found in events.values():
            found.sort(key=lambda event: event["at"] or "", reverse=True)
        return events

    return graph_read(work)


def _schema_change(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any] | None:
    """A root-cause event for a dataset's version `after` following `before`, or None when it only fills
    in types `before` left empty (`schema_change`)."""
    change = schema_change(
        list(zip(before["fieldNames"] or [], before["fieldTypes"] or [], strict=False)),
        list(zip(after["fieldNames"] or [], after["fieldTypes"] or [], strict=False)),
    )
    if change is None:
        return None
    return {
        "kind": "schema_change",
        "at": after["firstSeen"],
        "runId": after["createdByRun"],
        "version": after["version"],
        "message": change.summary() or "new schema version",
        "added": change.added,
        "removed": change.removed,
        "retyped": change.retyped,
        "renamed": [{"from": old, "to": new} for old, new in change.renamed],
    }
