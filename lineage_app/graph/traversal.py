"""The one graph traversal (`graph_walk`): breadth-first, two lineage hops per round trip, in a node budget."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from neo4j import ManagedTransaction

from lineage_app.graph import reads
from lineage_app.graph.driver import graph_read, records
from lineage_app.graph.model import NOW, Label, Moment, NodeRef
from lineage_app.graph.neighbourhoods import Cluster, neighbour_clusters

# An edge: its two nodes and its properties. A `LineageGraph` keeps them in data-flow order (origin,
# destination); a hop tells them in the order it walked them (from, to: upstream, against the flow).
Edge = tuple[NodeRef, NodeRef, tuple[tuple[str, Any], ...]]
# Each node's element id: how a traversal names the nodes it reached to the engine, within the
# one read transaction that found them (seeking by element id is far cheaper than by key).
ElementIds = dict[NodeRef, str]
V = TypeVar("V")  # what a node map holds for each node (an element id, how it was reached, …)
# What a walk tells its caller after each hop: the hop's edges, the nodes it newly reached, their distance.
Hop = Callable[[list[Edge], list[NodeRef], int], None]

CHUNK = 2000  # frontier nodes per hop statement, so no statement's answer grows with the graph
# Where each named column sits in a hop's and a two-hop read's lists (`reads.HOP_COLUMNS`, `reads.TWO_HOP_COLUMNS`).
_HOP = {name: at for at, name in enumerate(reads.HOP_COLUMNS)}
_TWO_HOP = {name: at for at, name in enumerate(reads.TWO_HOP_COLUMNS)}


@dataclass
class LineageGraph:
    """The nodes reached, with their summaries, and directed edges in data-flow order.

    `truncated` is set when the node budget stopped the traversal before `depth`; `clusters` stand for the
    neighbours of hubs the walk summarised instead of listing (`Walk.cluster_over`).
    """

    nodes: dict[NodeRef, dict[str, Any]] = field(default_factory=dict)
    edges: set[Edge] = field(default_factory=set)
    truncated: bool = False
    clusters: list[Cluster] = field(default_factory=list)
    # Each action job the traversal reached (before any roll-up) -> its application job.
    applications: dict[NodeRef, NodeRef] = field(default_factory=dict)


def node_find(*, label: Label, candidate_keys: list[str]) -> str | None:
    """The first of `candidate_keys` that names an existing node of `label`."""
    query = reads.FIND_NODES[label]
    found = {row["key"] for row in graph_read(lambda tx: records(tx, query, keys=candidate_keys))}
    return next((key for key in candidate_keys if key in found), None)


def element_ids(tx: ManagedTransaction, refs: Iterable[NodeRef]) -> ElementIds:
    """The element id of each of `refs` that names an existing node."""
    found: ElementIds = {}
    for label, keys in by_label(refs):
        for row in records(tx, reads.FIND_NODES[label], keys=keys):
            found[(label, row["key"])] = row["id"]
    return found


def lineage_traverse(
    *, start: NodeRef, depth: int, directions: tuple[str, ...], moment: Moment, max_nodes: int
) -> LineageGraph:
    """Everything within `depth` hops of `start` in the given directions, at most `max_nodes` nodes.

    Hops follow data flow: Dataset -> Job -> Dataset for dataset lineage, Field -> Field for
    column lineage. When a hop would pass the budget, the nodes it reaches are kept in key
    order up to the budget, the rest (and their edges) are left out, and `truncated` is set.
    """

    def work(tx: ManagedTransaction) -> LineageGraph:
        graph = LineageGraph()
        state = Walk(reached=element_ids(tx, [start]), max_nodes=max_nodes)
        _lineage_walks(tx, graph, state, [start], depth, directions, moment)
        graph.nodes = _summaries(tx, state.reached)
        return graph

    return graph_read(work)


def job_lineage_traverse(
    *,
    start: NodeRef,
    depth: int,
    directions: tuple[str, ...],
    moment: Moment,
    max_nodes: int,
    roll_up: bool,
    cluster_over: int | None = None,
) -> LineageGraph:
    """Dataset and job lineage around `start` (a dataset or a job) that knows applications.

    An application job (one whose runs are the parents of other jobs' runs: a Spark application
    and its actions, an Airflow DAG and its tasks) starts the traversal from itself and each of
    its action jobs, all at distance 0. The walk is `lineage_traverse`'s, at action level; then
    one read maps the jobs reached to their applications (`applications`). With `roll_up`, each
    action job is replaced by its application job, edges re-pointed and deduplicated; without,
    an application start that has no lineage of its own is left out (its actions stand for it).
    With `cluster_over`, a node with more neighbours than that in one hop is a hub (`Walk.cluster_over`).
    """

    def work(tx: ManagedTransaction) -> LineageGraph:
        graph = LineageGraph()
        state = Walk(reached=element_ids(tx, [start]), max_nodes=max_nodes, cluster_over=cluster_over)
        reached = state.reached
        starts = [start] if start in reached else []
        actions: list[NodeRef] = []
        if start[0] is Label.JOB and starts:
            found = application_actions(tx, application=start)
            actions = sorted(found)
            if len(actions) > max_nodes - 1:
                state.truncated = True  # the budget is spent: each walk takes one hop, for its edges
                actions = actions[: max(max_nodes - 1, 0)]
            reached.update((ref, found[ref]) for ref in actions)
            starts.extend(actions)
        _lineage_walks(tx, graph, state, starts, depth, directions, moment)
        _declared_dependencies(tx, graph, state, directions, moment)
        applications = job_applications(tx, jobs={ref: i for ref, i in reached.items() if ref[0] is Label.JOB})
        graph.applications = {ref: app for ref, (app, _) in applications.items()}
        if roll_up:
            apps = graph.applications
            if apps:  # without actions to fold, every edge stands as it is
                graph.edges = edge_times_merge(
                    (application_of(origin, apps), application_of(destination, apps), properties)
                    for origin, destination, properties in graph.edges
                    # two steps of one application declared to follow each other: no edge once rolled up
                    if application_of(origin, apps) != application_of(destination, apps)
                )
            reached = applications_roll_up(reached, apps, own=dict(applications.values()))
            state.clusters = [replace(c, drawn_on=application_of(c.hub, apps)) for c in state.clusters]
        elif actions and not any(start in (origin, destination) for origin, destination, _ in graph.edges):
            del reached[start]
        graph.nodes = _summaries(tx, reached)
        graph.clusters = state.clusters
        return graph

    return graph_read(work)


def _declared_dependencies(
    tx: ManagedTransaction, graph: LineageGraph, state: Walk, directions: tuple[str, ...], moment: Moment
) -> None:
    """The declared dependencies (`jobDependencies`) of the jobs the walk reached, one hop in each of
    `directions`, into `graph` as job -> job edges marked `declared` (one per pair of jobs); a job only they
    reach joins within the node budget. They are drawn beside the data flow, not walked on."""
    jobs = {ref for ref in state.reached if ref[0] is Label.JOB}
    declared: list[Edge] = []
    for direction in directions if jobs else ():
        rows: list[Edge] = []
        found: ElementIds = {}
        query = reads.DEPENDENCY_HOPS[(direction, reads.window(moment)[:2])]
        source, target, target_id = _HOP["source"], _HOP["target"], _HOP["targetId"]
        for _, ids in _chunks(state, jobs):
            for pair in records(tx, query, ids=ids, at=moment.at)[0]["pairs"]:
                found[(Label.JOB, pair[target])] = pair[target_id]
                times = _times([*(pair[_HOP[name]] for name in reads.EDGE_TIMES), None])  # never inferred
                rows.append(((Label.JOB, pair[source]), (Label.JOB, pair[target]), (*times, ("declared", True))))

        def edges(hop: list[Edge], _new: list[NodeRef], _distance: int, direction: str = direction) -> None:
            for one, other, properties in hop:
                if other in state.reached:
                    declared.append((one, other, properties) if direction == "downstream" else (other, one, properties))

        _advance(state, rows, found, 1, edges)
    # Both jobs may declare one dependency: one edge, current while either declaration is.
    graph.edges |= edge_times_merge(declared)
    graph.truncated = state.truncated


def application_of(ref: NodeRef, applications: Mapping[NodeRef, NodeRef]) -> NodeRef:
    """What `ref` stands as once action jobs are rolled up: its application job (`applications`), or itself."""
    return applications.get(ref, ref)


def applications_roll_up(
    nodes: Mapping[NodeRef, V],
    applications: Mapping[NodeRef, NodeRef],
    *,
    own: Mapping[NodeRef, V] | None = None,
    rank: Callable[[V], Any] | None = None,
) -> dict[NodeRef, V]:
    """`nodes` (each node's value: its element id, how it was reached…) with every action job, a key of
    `applications`, folded into its application job: the actions are left out and each application is in,
    as itself (its value among `nodes`, else in `own`) unless one of its actions ranks before it by
    `rank`; then as the nearest such action (least `rank`, then least key). Without `rank`, none does."""
    nearest: dict[NodeRef, NodeRef] = {}
    for action, app in applications.items():
        best = nearest.get(app)
        if best is None or (_rank(rank, nodes[action]), action) < (_rank(rank, nodes[best]), best):
            nearest[app] = action
    folded = {ref: value for ref, value in nodes.items() if ref not in applications}
    for app, action in nearest.items():
        itself = nodes[app] if app in nodes else (own or {}).get(app)
        if itself is not None and _rank(rank, itself) <= _rank(rank, nodes[action]):
            folded[app] = itself
        else:
            folded[app] = nodes[action]
    return folded


def _rank(rank: Callable[[V], Any] | None, value: V) -> Any:
    return rank(value) if rank is not None else 0


MAX_NESTING = 8  # application levels followed (Airflow DAG -> task -> Spark application -> action)


def job_applications(tx: ManagedTransaction, *, jobs: ElementIds) -> dict[NodeRef, tuple[NodeRef, str]]:
    """Each of `jobs` that is part of an application, with its outermost application job and that
    job's element id. A job's application is the job of its latest run's parent run, followed up to
    `MAX_NESTING` levels (one round trip each; jobs with no parent cost one round trip in all)."""
    parents: dict[NodeRef, tuple[NodeRef, str]] = {}
    asked, ask = set(jobs), sorted(jobs.values())
    for _ in range(MAX_NESTING):
        if not ask:
            break
        found: dict[NodeRef, tuple[NodeRef, str]] = {}
        rows = records(tx, reads.JOB_APPLICATIONS, ids=ask)[0]["rows"]
        for row in sorted(rows, key=lambda row: (row["job"], row["application"], row["applicationId"])):
            # Several: the least application key.
            found.setdefault((Label.JOB, row["job"]), ((Label.JOB, row["application"]), row["applicationId"]))
        parents.update(found)
        fresh = {app: app_id for app, app_id in found.values() if app not in asked}
        asked.update(fresh)
        ask = sorted(fresh.values())
    outermost: dict[NodeRef, tuple[NodeRef, str]] = {}
    for ref in jobs:
        seen, up = {ref}, parents.get(ref)
        while up is not None and up[0] in parents and parents[up[0]][0] not in seen:  # a cycle stops the climb
            seen.add(up[0])
            up = parents[up[0]]
        if up is not None:
            outermost[ref] = up
    return outermost


def application_actions(tx: ManagedTransaction, *, application: NodeRef) -> ElementIds:
    """The jobs that are part of `application`, and of each of those in turn (nested applications),
    by element id; empty for a job that is no application."""
    found: ElementIds = {}
    ask = [application[1]]
    for _ in range(MAX_NESTING):
        if not ask:
            break
        fresh: ElementIds = {}
        for row in records(tx, reads.APPLICATION_ACTIONS, keys=ask)[0]["rows"]:
            ref = (Label.JOB, row["job"])
            if ref != application and ref not in found:
                fresh[ref] = row["jobId"]
        found.update(fresh)
        ask = sorted(key for _, key in fresh)
    return found


@dataclass
class Walk:
    """A breadth-first walk's state, shared by the walks of one read: every node reached (the
    visited set) with its element id, the node budget (None: no budget), whether it stopped one,
    and the node whose reaching ends the walk (None: walk to `depth`).

    With `cluster_over`, a dataset or job with more neighbours than that in one hop is a hub: its neighbours
    in that hop are counted into `clusters` instead of reached (nor walked through), each cluster one node
    of the budget."""

    reached: ElementIds
    max_nodes: int | None = None
    truncated: bool = False
    goal: NodeRef | None = None
    cluster_over: int | None = None
    clusters: list[Cluster] = field(default_factory=list)


def graph_walk(
    tx: ManagedTransaction,
    state: Walk,
    *,
    starts: Iterable[NodeRef],
    depth: int,
    direction: str,
    moment: Moment,
    on_hop: Hop,
    times: bool = True,
) -> None:
    """Breadth-first from `starts` (those in `state.reached`) up to `depth` hops in `direction`, over the
    edges `moment` names; each edge with its times unless `times` is false (a walk that needs only what
    it reaches).

    Each hop takes the nodes not reached before in key order, up to the budget (the rest are left
    out and `truncated` set, which ends the walk), then tells `on_hop` the hop's edges, the nodes
    it newly reached and their distance. Dataset and job lineage goes two hops per round trip
    while two are left, applied exactly as two single hops would be (one at a time when it summarises
    hubs, `Walk.cluster_over`: a hub in the middle of two would already have its neighbours listed).
    The walk ends early once `state.goal` is reached.
    """
    frontier, distance = {ref for ref in starts if ref in state.reached}, 0
    while frontier and distance < depth and state.goal not in state.reached:
        double = state.cluster_over is None and depth - distance >= 2
        if double and all(ref[0] is not Label.FIELD for ref in frontier):
            first, beyond, found = _double_hop(tx, state, frontier, direction, moment, times)
            middle = _advance(state, first, found, distance + 1, on_hop)
            second = [row for row in beyond if row[0] in middle]
            frontier = _advance(state, second, found, distance + 2, on_hop) if middle else set()
            distance += 2
        else:
            rows, found = _hop(tx, state, frontier, direction, moment, times)
            frontier = _advance(state, rows, found, distance + 1, on_hop)
            distance += 1


def path_length_find(*, start: NodeRef, goal: NodeRef, depth: int) -> int | None:
    """Hops on the shortest downstream lineage path from `start` to `goal` within `depth`, or None.

    No node budget: a budget could stop the walk short of a connected `goal`; reaching it ends the walk.
    """

    def work(tx: ManagedTransaction) -> int | None:
        state = Walk(reached=element_ids(tx, [start]), goal=goal)
        found: list[int] = []

        def reach(_rows: list[Edge], new: list[NodeRef], distance: int) -> None:
            if goal in new:
                found.append(distance)

        graph_walk(
            tx, state, starts=[start], depth=depth, direction="downstream", moment=NOW, on_hop=reach, times=False
        )
        return found[0] if found else None

    return graph_read(work)


def _chunks(state: Walk, frontier: set[NodeRef]) -> Iterator[tuple[Label, list[str]]]:
    """The frontier's element ids by label, `CHUNK` at a time, so no statement's answer grows with the graph."""
    for label, keys in by_label(frontier):
        for start in range(0, len(keys), CHUNK):
            yield label, [state.reached[(label, key)] for key in keys[start : start + CHUNK]]


def _hop(
    tx: ManagedTransaction, state: Walk, frontier: set[NodeRef], direction: str, moment: Moment, times: bool
) -> tuple[list[Edge], ElementIds]:
    rows: list[Edge] = []
    found: ElementIds = {}
    for label, ids in _chunks(state, frontier):
        if state.cluster_over is not None and label is not Label.FIELD:
            hop, reached = _clustered_hop_rows(tx, state, label=label, ids=ids, direction=direction, moment=moment)
        else:
            hop, reached = hop_rows(tx, label=label, ids=ids, direction=direction, moment=moment, times=times)
        rows.extend(hop)
        found.update(reached)
    return rows, found


def _clustered_hop_rows(
    tx: ManagedTransaction, state: Walk, *, label: Label, ids: list[str], direction: str, moment: Moment
) -> tuple[list[Edge], ElementIds]:
    """`hop_rows` (with times) for a walk that summarises hubs: the edges of the `label` nodes with element ids
    `ids` that have at most `state.cluster_over` neighbours in the hop; those with more are hubs, whose
    neighbours join `state.clusters` (as far as the budget lets them; past it the walk is `truncated`)."""
    query, end = reads.CLUSTERED_HOPS[reads.hop_key(direction, label, moment, times=True)]
    rows: list[Edge] = []
    found: ElementIds = {}
    hubs: dict[str, str] = {}
    properties = [(name, _HOP[name]) for name in (*reads.EDGE_TIMES, *reads.EDGE_MARKS)]
    target, target_id = _HOP["target"], _HOP["targetId"]
    for key, degree, pairs in records(tx, query, ids=ids, at=moment.at, over=state.cluster_over)[0]["sources"]:
        if degree > (state.cluster_over or 0):
            hubs[key] = state.reached[(label, key)]
        for pair in pairs:
            found[(end, pair[target])] = pair[target_id]
            rows.append(((label, key), (end, pair[target]), tuple((name, pair[at]) for name, at in properties)))
    if hubs:
        clusters = neighbour_clusters(tx, label=label, hubs=hubs, direction=direction, moment=moment)
        if state.max_nodes is not None:
            room = max(state.max_nodes - len(state.reached) - len(state.clusters), 0)
            state.truncated = state.truncated or len(clusters) > room
            clusters = clusters[:room]
        state.clusters.extend(clusters)
    return rows, found


def _double_hop(
    tx: ManagedTransaction, state: Walk, frontier: set[NodeRef], direction: str, moment: Moment, times: bool
) -> tuple[list[Edge], list[Edge], ElementIds]:
    first: list[Edge] = []
    beyond: list[Edge] = []
    found: ElementIds = {}
    for label, ids in _chunks(state, frontier):
        hop_one, hop_two, reached = double_hop_rows(
            tx, state, label=label, ids=ids, direction=direction, moment=moment, times=times
        )
        first.extend(hop_one)
        beyond.extend(hop_two)
        found.update(reached)
    return first, beyond, found


def _advance(state: Walk, rows: list[Edge], found: ElementIds, distance: int, on_hop: Hop) -> set[NodeRef]:
    """Take one hop: the nodes not reached before, in key order up to the budget, join `reached`.
    Returns the next frontier (empty once truncated)."""
    new = sorted({target for _, target, _ in rows if target not in state.reached})
    room = None if state.max_nodes is None else state.max_nodes - len(state.reached) - len(state.clusters)
    if room is not None and len(new) > room:
        state.truncated = True
        new = new[: max(room, 0)]
    for node in new:
        state.reached[node] = found[node]
    on_hop(rows, new, distance)
    return set() if state.truncated else set(new)


def hop_rows(
    tx: ManagedTransaction, *, label: Label, ids: list[str], direction: str, moment: Moment, times: bool
) -> tuple[list[Edge], ElementIds]:
    """Every edge one hop from the `label` nodes with element ids `ids`, in one round trip; and
    the element id of every node the hop reached."""
    query, end = reads.HOPS[reads.hop_key(direction, label, moment, times=times)]
    rows: list[Edge] = []
    found: ElementIds = {}
    column = label is Label.FIELD
    carried = (
        *(reads.EDGE_TIMES if times else ()),
        *(reads.EDGE_MARKS if times and not column else ()),
        *(reads.EDGE_PROPERTIES if column else ()),
    )
    properties = [(name, _HOP[name]) for name in carried]
    source, target, target_id = _HOP["source"], _HOP["target"], _HOP["targetId"]
    for pair in records(tx, query, ids=ids, at=moment.at)[0]["pairs"]:
        reached = (end, pair[target])
        found[reached] = pair[target_id]
        rows.append(((label, pair[source]), reached, tuple((name, pair[at]) for name, at in properties)))
    return rows, found


def double_hop_rows(
    tx: ManagedTransaction,
    state: Walk,
    *,
    label: Label,
    ids: list[str],
    direction: str,
    moment: Moment,
    times: bool,
) -> tuple[list[Edge], list[Edge], ElementIds]:
    """Dataset / job lineage two hops from the `label` nodes with element ids `ids`, in one round
    trip: the first hop's edges, every edge one hop beyond each node the first hop newly reached, and
    the element id of every node either hop reached. A node reached before (`state.reached`) was walked
    on from then: its edges beyond are not this walk's second hop, so they are not kept (a wide hop
    meets many)."""
    query, middle, end = reads.DOUBLE_HOPS[(direction, label, reads.window(moment, times=times))]
    first: list[Edge] = []
    beyond: list[Edge] = []
    found: ElementIds = {}
    sources, source_times = _TWO_HOP["sources"], _TWO_HOP["sourceTimes"]
    key, key_id = _TWO_HOP["middle"], _TWO_HOP["middleId"]
    targets, target_ids, target_times = _TWO_HOP["targets"], _TWO_HOP["targetIds"], _TWO_HOP["targetTimes"]
    for row in records(tx, query, ids=ids, at=moment.at)[0]["rows"]:
        via = (middle, row[key])
        found[via] = row[key_id]
        # Without times the statement answers empty times lists: each edge then carries no properties.
        held = _times_each(row[source_times]) if times else [()] * len(row[sources])
        first.extend(((label, source), via, h) for source, h in zip(row[sources], held, strict=True))
        if via in state.reached:
            continue
        far = _times_each(row[target_times]) if times else [()] * len(row[targets])
        for target, target_id, h in zip(row[targets], row[target_ids], far, strict=True):
            found[(end, target)] = target_id
            beyond.append((via, (end, target), h))
    return first, beyond, found


def _times_each(rows: list[list[Any]]) -> list[tuple[tuple[str, Any], ...]]:
    """Each edge's `reads.EDGE_TIMES` (first seen, last seen, stale since), always first, and `reads.EDGE_MARKS`
    (inferred) as the properties a dataset-lineage edge carries. One comprehension for a whole list: a large
    answer makes tens of thousands."""
    return [
        (("firstSeen", first), ("lastSeen", last), ("staleSince", stale), ("inferred", inferred))
        for first, last, stale, inferred in rows
    ]


def _times(values: list[Any]) -> tuple[tuple[str, Any], ...]:
    """One edge's `_times_each`."""
    return _times_each([values])[0]


def edge_times_merge(edges: Iterable[Edge]) -> set[Edge]:
    """`edges` with those between the same two nodes made one (an application's actions rolled up into it):
    first seen the earliest, last seen the latest, stale only if all were, since the latest of them, inferred
    only if all were."""
    merged: dict[tuple[NodeRef, NodeRef], list[tuple[tuple[str, Any], ...]]] = {}
    for origin, destination, properties in edges:
        merged.setdefault((origin, destination), []).append(properties)
    result: set[Edge] = set()
    for (origin, destination), found in merged.items():
        if len(found) == 1 or len(set(found)) == 1:
            result.add((origin, destination, found[0]))
            continue
        times = [dict(properties) for properties in found]
        stale: list[str] = [t["staleSince"] for t in times if t.get("staleSince")]
        first = min((t["firstSeen"] for t in times if t.get("firstSeen")), default=None)
        last = max((t["lastSeen"] for t in times if t.get("lastSeen")), default=None)
        inferred = True if all(t.get("inferred") for t in times) else None
        marks = set.intersection(
            *(set(properties[len(reads.EDGE_TIMES) + len(reads.EDGE_MARKS) :]) for properties in found)
        )
        merged_times = _times([first, last, max(stale) if len(stale) == len(times) else None, inferred])
        result.add((origin, destination, (*merged_times, *sorted(marks))))
    return result


def by_label(nodes: Iterable[NodeRef]) -> list[tuple[Label, list[str]]]:
    """`nodes` grouped by label, labels and keys sorted."""
    grouped: dict[Label, list[str]] = {}
    for label, key in nodes:
        grouped.setdefault(label, []).append(key)
    return [(label, sorted(grouped[label])) for label in sorted(grouped)]


def _lineage_walks(
    tx: ManagedTransaction,
    graph: LineageGraph,
    state: Walk,
    starts: list[NodeRef],
    depth: int,
    directions: tuple[str, ...],
    moment: Moment,
) -> None:
    """`graph_walk` from `starts` in each direction in turn, every edge between reached nodes into `graph`
    in data-flow order."""
    for direction in directions:

        def edges(rows: list[Edge], _new: list[NodeRef], _distance: int, direction: str = direction) -> None:
            for source, target, properties in rows:
                if target in state.reached:
                    edge = (source, target, properties) if direction == "downstream" else (target, source, properties)
                    graph.edges.add(edge)

        graph_walk(tx, state, starts=starts, depth=depth, direction=direction, moment=moment, on_hop=edges)
    graph.truncated = state.truncated


def _summaries(tx: ManagedTransaction, reached: ElementIds) -> dict[NodeRef, dict[str, Any]]:
    found: dict[NodeRef, dict[str, Any]] = {}
    for label, keys in by_label(reached):
        ids = [reached[(label, key)] for key in keys]
        for row in node_rows(tx, statement=reads.SUMMARIES_BY_ID[label], columns=reads.SUMMARY_COLUMNS[label], ids=ids):
            found[(label, row.pop("key"))] = row
    return found


def node_summaries(tx: ManagedTransaction, *, label: Label, keys: list[str]) -> list[dict[str, Any]]:
    """The summary of each node of `label` named by `keys`; datasets and jobs with their latest run."""
    return node_rows(tx, statement=reads.SUMMARIES[label], columns=reads.SUMMARY_COLUMNS[label], keys=keys)


def node_rows(
    tx: ManagedTransaction,
    *,
    statement: str,
    columns: tuple[tuple[str, str], ...],
    keys: list[str] | None = None,
    ids: list[str] | None = None,
) -> list[dict[str, Any]]:
    """The rows of a `reads.node_columns` statement built from `columns`, for the nodes named by
    `keys` (natural keys) or by `ids` (element ids), as dicts by column name."""
    names = [name for name, _ in columns]
    return [dict(zip(names, values, strict=True)) for values in records(tx, statement, keys=keys, ids=ids)[0]["rows"]]


def run_find(*, run_id: str) -> dict[str, Any] | None:
    """A run's node properties with its inputs, outputs and child runs, or None."""
    rows = graph_read(lambda tx: records(tx, reads.RUN_DETAIL, runId=run_id))
    return rows[0] if rows else None


def runs_properties(*, run_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The node properties of those of `run_ids` the graph has, by run id."""
    rows = graph_read(lambda tx: records(tx, reads.RUN_PROPERTIES, runIds=list(run_ids)))
    return {row["runId"]: row["props"] for row in rows}
