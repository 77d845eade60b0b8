"""Impact and root-cause traversal: every node downstream (or upstream) with its distance and one shortest path.

The walk is the one traversal's (`traversal.graph_walk`: breadth-first, up to two hops per round
trip, `CHUNK` frontier nodes per statement, so no statement's answer grows with the graph). It keeps
only what paths need (each node's distance, parent and the edge it came by), one node reference per
node shared by every map that holds it; the element ids it walked by are dropped with the walk. The
details of each asset (names, owners, last run) are read later, one chunk at a time, by
`impact_details`, and paths are built a distance at a time (`Traversal.path`). This in-memory walk
serves the explorer's blast radius, alerts and root cause; the reports walk with `impact_walk`, which
keeps the same state in SQLite so that an export's memory does not grow with its rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice, pairwise
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


def chunks(items: Iterable[Any], size: int | None = None) -> Iterator[list[Any]]:
    """`items` in lists of `size` (`CHUNK`), read from `items` one list at a time."""
    found = iter(items)
    while chunk := list(islice(found, size or CHUNK)):
        yield chunk


# One node's path: the node ids from a start to it, and the column edges along them.
Chain = tuple[list[str], list[dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class Reach:
    """How a node was first reached: hops from the nearest start, the node before it, the edge between.

    `via` is set for datasets and jobs reached through column lineage: the field they were found by.
    One per node reached, so slotted: no dictionary each.
    """

    distance: int
    parent: NodeRef | None = None
    edge: tuple[tuple[str, Any], ...] = ()
    via: NodeRef | None = None


@dataclass
class Chains:
    """The paths of the nodes at the farthest distance asked for so far and at the one before it.

    Rows are written nearest first and a node's parent is one hop nearer, so a path is built from its
    parent's, kept here; older ones are dropped, so the paths held are those of two distances, not of
    the report. Asked out of that order, a path is built again from the start: the same, slower.
    """

    distance: int = 0
    latest: dict[NodeRef, Chain] = field(default_factory=dict)
    before: dict[NodeRef, Chain] = field(default_factory=dict)

    def get(self, ref: NodeRef) -> Chain | None:
        return self.latest.get(ref) or self.before.get(ref)

    def put(self, ref: NodeRef, distance: int, chain: Chain) -> None:
        if distance > self.distance:
            self.before = self.latest if distance == self.distance + 1 else {}
            self.latest, self.distance = {}, distance
        if distance >= self.distance - 1:
            (self.latest if distance == self.distance else self.before)[ref] = chain


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
    _chains: Chains = field(default_factory=Chains, repr=False)

    def node_id(self, ref: NodeRef) -> str:
        return node_ref_id(application_of(ref, self.applications) if self.rolled_up else ref)

    def assets(self) -> list[NodeRef]:
        """The reached nodes other than the starts and seeds (and, rolled up, action jobs), by distance,
        kind and id."""
        return list(self.assets_nearest_first())

    def assets_nearest_first(self) -> Iterator[NodeRef]:
        """`assets` one distance at a time: only one distance's ids are built to sort it."""
        folded = self.applications if self.rolled_up else {}
        by_distance: dict[int, list[NodeRef]] = {}
        for ref, reach in self.seen.items():
            if reach.distance > 0 and ref not in folded:
                by_distance.setdefault(reach.distance, []).append(ref)
        for distance in sorted(by_distance):
            found = by_distance.pop(distance)
            found.sort(key=lambda ref: (TYPE_ORDER[ref[0]], self.node_id(ref)))
            yield from found

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

    def _chain(self, ref: NodeRef) -> Chain:
        """`path` without the `via` step: a path is its parent's plus one step (`Chains` keeps the latest)."""
        step = self.seen[ref]
        found = self._chains.get(ref)
        if found is None:
            ids, edges = self._chain(step.parent) if step.parent is not None else ([], [])
            if ref[0] is Label.FIELD and step.parent is not None:
                edges = [*edges, path_edge(step.edge)]
            found = ([*ids, self.node_id(ref)], edges)
            self._chains.put(ref, step.distance, found)
        return found


def path_edge(edge: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    """A column edge as a path shows it: its properties but its seen-times, `indirect` always a boolean."""
    properties = {name: value for name, value in edge if name not in reads.EDGE_TIMES}
    properties["indirect"] = bool(properties.get("indirect"))
    return properties


def first_edges(rows: list[Edge], targets: dict[NodeRef, NodeRef]) -> dict[NodeRef, Edge]:
    """The first edge to each of `targets` (by source key, then properties; on a tie, the first row): its
    parent on the path, always the same one. Picked in one pass, not by sorting the whole hop."""
    first: dict[NodeRef, Edge] = {}
    for row in rows:
        node = targets.get(row[1])
        if node is None:
            continue
        held = first.get(node)
        if held is None or row[0][1] < held[0][1] or (row[0][1] == held[0][1] and str(row[2]) < str(held[2])):
            first[node] = row
    return first


def _breadth_first(
    tx: ManagedTransaction,
    traversal: Traversal,
    reached: ElementIds,
    seeds: list[NodeRef],
    *,
    depth: int,
    direction: str,
    moment: Moment,
) -> None:
    """`graph_walk` from `seeds`, recording how each node was first reached; `reached` is the walks'
    visited set, by element id."""
    reached.update(element_ids(tx, [ref for ref in seeds if ref not in reached]))
    # Each hop's rows name their nodes afresh: a node and its parent are named by the walk's own
    # references (the hop before's new nodes, or the seeds), so each node's key is held once.
    nearer: dict[NodeRef, NodeRef] = {ref: ref for ref in seeds}

    def reach(rows: list[Edge], new: list[NodeRef], distance: int) -> None:
        nonlocal nearer
        fresh = {ref: ref for ref in new}
        for node, (source, _, edge) in first_edges(rows, fresh).items():
            if node not in traversal.seen:
                traversal.seen[node] = Reach(distance, nearer.get(source, source), edge)
        nearer = fresh

    # Paths need only what each node was reached by: no edge's times.
    walk = Walk(reached=reached)
    graph_walk(tx, walk, starts=seeds, depth=depth, direction=direction, moment=moment, on_hop=reach, times=False)


def field_seeds(tx: ManagedTransaction, datasets: list[str]) -> list[NodeRef]:
    """The fields of the datasets with natural keys `datasets`: the seeds of their column impact, by key."""
    keys: list[str] = []
    for chunk in chunks(sorted(datasets)):
        keys.extend(records(tx, q.FIELDS_OF_DATASETS, keys=chunk)[0]["keys"])
    return [(Label.FIELD, key) for key in sorted(set(keys))]


def job_keys(tx: ManagedTransaction, job_ids: set[str]) -> dict[str, str]:
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
    keys = job_keys(tx, {job for _, job in jobs_by_field})
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
        reached: ElementIds = {}  # the walks' visited set: gone with the walk, the report does not need it
        for ref in starts:
            traversal.seen[ref] = Reach(0)
        table_starts = [ref for ref in starts if ref[0] is not Label.FIELD]
        for ref in [ref for ref in table_starts if ref[0] is Label.JOB]:
            for action, action_id in sorted(application_actions(tx, application=ref).items()):
                if action not in traversal.seen:
                    traversal.seen[action] = Reach(0)
                    reached[action] = action_id
                    table_starts.append(action)
        _breadth_first(tx, traversal, reached, table_starts, depth=depth, direction="downstream", moment=moment)
        datasets = [key for label, key in starts if label is Label.DATASET]
        seeds = [ref for ref in starts if ref[0] is Label.FIELD]
        for seed in field_seeds(tx, datasets) if datasets else []:
            if seed not in traversal.seen:
                traversal.seen[seed] = Reach(0)
                seeds.append(seed)
        _breadth_first(tx, traversal, reached, seeds, depth=depth, direction="downstream", moment=moment)
        if any(ref[0] is Label.FIELD for ref in starts):
            _owners_of_fields(tx, traversal)
        if not moment.stale:
            # Only from nodes the walk went on from: a stale edge beyond the depth was never a path.
            inner = [i for ref, i in reached.items() if ref in traversal.seen and traversal.seen[ref].distance < depth]
            traversal.stale_left_out = stale_edges_from(tx, inner, moment)
        _find_applications(tx, traversal, reached)
        if roll_up:
            # The actions stay in `seen` (a path may pass through one); `assets` and `node_id` fold them.
            traversal.seen.update(
                applications_roll_up(traversal.seen, traversal.applications, rank=lambda reach: reach.distance)
            )
            traversal.rolled_up = True
        return traversal

    return graph_read(work)


def stale_edges_from(tx: ManagedTransaction, reached: list[str], moment: Moment) -> int:
    """How many stale edges lead on from the nodes with element ids `reached` (left out of a walk at `moment`)."""
    ids = sorted(reached)
    return sum(records(tx, q.STALE_EDGES_FROM, ids=chunk, at=moment.at)[0]["stale"] for chunk in chunks(ids))


def _find_applications(tx: ManagedTransaction, traversal: Traversal, reached: ElementIds) -> None:
    jobs = sorted(ref for ref in traversal.seen if ref[0] is Label.JOB)
    missing = [ref for ref in jobs if ref not in reached]  # found by a field's derivation
    reached.update(element_ids(tx, missing) if missing else {})
    for chunk in chunks([ref for ref in jobs if ref in reached]):
        found = job_applications(tx, jobs={ref: reached[ref] for ref in chunk})
        traversal.applications.update((ref, app) for ref, (app, _) in found.items())


def upstream_traverse(*, start: NodeRef, depth: int, moment: Moment = NOW) -> Traversal:
    """Datasets and jobs upstream of `start` within `depth` hops (Dataset <- Job <- Dataset), over the
    edges `moment` names."""

    def work(tx: ManagedTransaction) -> Traversal:
        traversal = Traversal(starts=[start], seen={start: Reach(0)})
        _breadth_first(tx, traversal, {}, [start], depth=depth, direction="upstream", moment=moment)
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
