"""Lineage graphs shaped for the API: Marquez-style node lists with in / out edges, for datasets and jobs or fields."""

from __future__ import annotations

from collections import defaultdict
from operator import itemgetter
from typing import Any

from django.conf import settings

from lineage_app.graph import listings
from lineage_app.graph.model import API_TYPES, NOW, Label, Moment, NodeType
from lineage_app.graph.neighbourhoods import Cluster
from lineage_app.graph.node_ids import node_ref_id
from lineage_app.graph.node_resolve import node_resolve
from lineage_app.graph.quality import UNKNOWN
from lineage_app.graph.reads import EDGE_TIMES
from lineage_app.graph.traversal import LineageGraph, NodeRef, job_lineage_traverse, lineage_traverse

DIRECTIONS = {"upstream": ("upstream",), "downstream": ("downstream",), "both": ("upstream", "downstream")}


def lineage_for_node(
    *,
    node_id: str,
    depth: int,
    direction: str,
    moment: Moment = NOW,
    level: str = "application",
    include_temporary: bool = False,
) -> dict[str, Any]:
    """Datasets and jobs within `depth` hops of `node_id` (dataset -> job -> dataset is two hops).

    At `application` level (the default, as in the API) each action job (one whose latest run has a
    parent run) is replaced by its application job, whose data lists its `actions`; at `action` level,
    the graph as recorded, each action job's data names its `application`. An application job starts
    from its action jobs at either level. Only the edges `moment` names are followed (by default those
    current now); each edge says when it held. Each dataset's data says its data-quality status now.

    Jobs' declared dependencies (`jobDependencies`) are job -> job edges marked `declared`. Unless
    `include_temporary`, each temporary dataset (`datasetType` subtype TEMPORARY) between a job that writes it
    and one that reads it is left out, its edges made job -> job edges that name it in `via`.

    A node with more than `LINEAGE_CLUSTER_THRESHOLD` neighbours in one hop is a hub: its neighbours there are
    not listed nor walked through; `clusters` count them by namespace (`neighbours_for_node` lists them).
    """
    start = node_resolve(node_id=node_id)
    graph = job_lineage_traverse(
        start=start,
        depth=depth,
        directions=DIRECTIONS[direction],
        moment=moment,
        max_nodes=settings.LINEAGE_MAX_NODES,
        roll_up=level == "application",
        cluster_over=settings.LINEAGE_CLUSTER_THRESHOLD or None,
    )
    if not include_temporary:
        temporary_collapse(graph, keep={start, *(cluster.drawn_on or cluster.hub for cluster in graph.clusters)})
    _partition_writes_mark(graph)
    body = _graph_body(graph, start, depth=depth, direction=direction, edge_fields=False, level=level)
    body["clusters"] = [_cluster_body(cluster) for cluster in graph.clusters]
    datasets = {ref[1]: summary for ref, summary in graph.nodes.items() if ref[0] is Label.DATASET}
    statuses = listings.dataset_quality_statuses(keys=sorted(datasets))
    for key, summary in datasets.items():  # the same dicts as the body's nodes' `data`
        summary["quality"] = statuses.get(key, UNKNOWN)
    return body


def _partition_writes_mark(graph: LineageGraph) -> None:
    """Give each job -> dataset edge whose job (or an action rolled up into it) last wrote a part of the dataset
    (a partition, `subset` facet) that part and when, as `lastSubset` and `lastSubsetAt`."""
    actions: dict[NodeRef, list[NodeRef]] = defaultdict(list)
    for action, app in graph.applications.items():
        actions[app].append(action)
    writes = [edge for edge in graph.edges if edge[0][0] is Label.JOB and edge[1][0] is Label.DATASET]
    pairs = sorted({(job[1], dataset[1]) for (app, dataset, _) in writes for job in [app, *actions[app]]})
    found = listings.job_output_subsets(pairs=pairs)
    if not found:
        return
    for edge in writes:
        app, dataset, properties = edge
        parts = [found[job[1], dataset[1]] for job in [app, *actions[app]] if (job[1], dataset[1]) in found]
        if parts:
            subset, at = max(parts, key=lambda part: part[1] or "")
            graph.edges.discard(edge)
            graph.edges.add((app, dataset, (*properties, ("lastSubset", subset), ("lastSubsetAt", at))))


def _cluster_body(cluster: Cluster) -> dict[str, Any]:
    """A cluster as the API tells it; its `id` names the hub, the direction and the namespace (`*`: every one)."""
    hub = node_ref_id(cluster.hub)
    return {
        "id": f"neighbours:{cluster.direction}:{cluster.namespace or '*'}:{hub}",
        "nodeId": hub,
        "drawnOn": node_ref_id(cluster.drawn_on or cluster.hub),
        "direction": cluster.direction,
        "type": API_TYPES[cluster.label],
        "namespace": cluster.namespace,
        "count": cluster.members,
        "failing": cluster.failing,
    }


def temporary_collapse(graph: LineageGraph, *, keep: set[NodeRef]) -> None:
    """Leave out of `graph` each temporary dataset (but those in `keep`) that a job it reached writes and another it
    reached reads: each writer -> reader pair becomes one job -> job edge naming it in `via`, held while both
    edges held (seen from the later first sighting to the earlier last one, stale if either is). One that
    only a writer or only a reader reached stays, so where the walk stopped is still drawn."""
    temporary = {
        ref
        for ref, summary in graph.nodes.items()
        if ref[0] is Label.DATASET and summary.get("temporary") and ref not in keep
    }
    for dataset in sorted(temporary):
        into = [(origin, properties) for origin, destination, properties in graph.edges if destination == dataset]
        out = [(destination, properties) for origin, destination, properties in graph.edges if origin == dataset]
        if not into or not out:
            continue
        graph.edges = {edge for edge in graph.edges if dataset not in (edge[0], edge[1])}
        del graph.nodes[dataset]
        via = node_ref_id(dataset)
        for writer, written in into:
            for reader, read in out:
                if writer != reader:
                    graph.edges.add((writer, reader, _through(dict(written), dict(read), via)))


def _through(written: dict[str, Any], read: dict[str, Any], via: str) -> tuple[tuple[str, Any], ...]:
    """The properties of a job -> job edge through the temporary dataset `via`, from its two edges'."""
    first = max(filter(None, (written.get("firstSeen"), read.get("firstSeen"))), default=None)
    last = min(filter(None, (written.get("lastSeen"), read.get("lastSeen"))), default=None)
    stale = min(filter(None, (written.get("staleSince"), read.get("staleSince"))), default=None)
    inferred = True if read.get("inferred") else None  # the reader's input of it is only inferred
    return (("firstSeen", first), ("lastSeen", last), ("staleSince", stale), ("inferred", inferred), ("via", (via,)))


def column_lineage_for_node(*, node_id: str, depth: int, direction: str, moment: Moment = NOW) -> dict[str, Any]:
    """Fields within `depth` derivations of the field `node_id`, with each edge's job and transformation."""
    start = node_resolve(node_id=node_id, kinds=(NodeType.DATASET_FIELD,))
    graph = lineage_traverse(
        start=start,
        depth=depth,
        directions=DIRECTIONS[direction],
        moment=moment,
        max_nodes=settings.LINEAGE_MAX_NODES,
    )
    return _graph_body(graph, start, depth=depth, direction=direction, edge_fields=True)


def _application_data(graph: LineageGraph, level: str) -> dict[NodeRef, dict[str, Any]]:
    """What application / action job nodes add to their `data` at `level`: an application job its
    `actions` (the ids of its action jobs this answer reached) and `level`; an action job (action
    level) its `application`."""
    extra: dict[NodeRef, dict[str, Any]] = {}
    if level == "application":
        for action, app in sorted(graph.applications.items()):
            extra.setdefault(app, {"actions": [], "level": "application"})["actions"].append(node_ref_id(action))
        for found in extra.values():
            found["actions"].sort()
    else:
        extra = {action: {"application": node_ref_id(app)} for action, app in graph.applications.items()}
    return extra


def _edges(
    graph: LineageGraph, ids: dict[NodeRef, str], *, edge_fields: bool
) -> tuple[dict[NodeRef, list[dict[str, Any]]], dict[NodeRef, list[dict[str, Any]]]]:
    """Each node's incoming and outgoing edges, in a stable order; with `edge_fields`, each edge's properties too."""
    in_edges: dict[NodeRef, list[dict[str, Any]]] = defaultdict(list)
    out_edges: dict[NodeRef, list[dict[str, Any]]] = defaultdict(list)
    # Two nodes have one dataset-lineage edge; column lineage may have one per job deriving the field.
    order = (lambda e: (e[0], e[1], str(e[2]))) if edge_fields else itemgetter(0, 1)
    for origin, destination, properties in sorted(graph.edges, key=order):
        # When the edge held: its first three properties (`traversal._times`); current unless stale.
        (_, first), (_, last), (_, stale) = properties[:3]
        edge: dict[str, Any] = {
            "origin": ids[origin],
            "destination": ids[destination],
            "firstSeen": first,
            "lastSeen": last,
            "current": stale is None,
            "staleSince": stale,
        }
        if edge_fields:
            edge.update((name, value) for name, value in properties if name not in EDGE_TIMES)
            edge["indirect"] = bool(edge.get("indirect"))
        else:  # an input inferred from column lineage (docs/dbt.md) says so; a job -> job edge is a declared
            # dependency or goes through temporary datasets
            edge["inferred"] = len(properties) > 3 and properties[3][1] is True
            edge.update((name, list(value) if name == "via" else value) for name, value in properties[4:])
        out_edges[origin].append(edge)
        in_edges[destination].append(edge)
    return in_edges, out_edges


def _graph_body(
    graph: LineageGraph,
    start: NodeRef,
    *,
    depth: int,
    direction: str,
    edge_fields: bool,
    level: str | None = None,
) -> dict[str, Any]:
    ids = {ref: summary["nodeId"] for ref, summary in graph.nodes.items()}
    extra = _application_data(graph, level) if level else {}
    in_edges, out_edges = _edges(graph, ids, edge_fields=edge_fields)
    nodes = []
    for ref, summary in sorted(graph.nodes.items(), key=lambda item: ids[item[0]]):
        data = summary  # read for this answer alone
        if ref[0] is Label.FIELD:
            data = {
                "namespace": data["namespace"],
                "dataset": data["dataset"],
                "name": data["name"],
                "type": data["type"],
            }
        elif ref in extra:
            data.update(extra[ref])
        nodes.append(
            {
                "id": ids[ref],
                "type": API_TYPES[ref[0]],
                "data": data,
                "inEdges": in_edges[ref],
                "outEdges": out_edges[ref],
            }
        )
    body = {
        "nodeId": ids[start] if start in ids else node_ref_id(start),
        "depth": depth,
        "direction": direction,
        "truncated": graph.truncated,
        "graph": nodes,
    }
    if level:
        body["level"] = level
    return body
