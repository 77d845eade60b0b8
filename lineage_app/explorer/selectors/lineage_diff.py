"""What changed in the lineage around a node between two instants: one merged graph, each node and edge
marked added, removed or unchanged, and the schema changes of the datasets in either graph."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from lineage_app.explorer.selectors.lineage import column_lineage_for_node, lineage_for_node
from lineage_app.graph import listings
from lineage_app.graph.model import Label, Moment
from lineage_app.graph.node_ids import node_id_candidate_keys
from lineage_app.graph.schema_fields import schema_change
from lineage_app.instants import utc_text

ADDED, REMOVED, UNCHANGED = "added", "removed", "unchanged"


def lineage_diff(
    *, node_id: str, depth: int, direction: str, level: str, since: datetime, until: datetime
) -> dict[str, Any]:
    """Datasets and jobs around `node_id` at `since` and at `until` (`lineage_for_node` at each), merged."""

    def at(moment: Moment) -> dict[str, Any]:
        return lineage_for_node(node_id=node_id, depth=depth, direction=direction, moment=moment, level=level)

    body = _diff(at, since, until)
    datasets = [node["id"] for node in body["graph"] if node["type"] == "DATASET"]
    return {**body, "level": level, "schemaChanges": _schema_changes(datasets, body["from"], body["to"])}


def column_lineage_diff(
    *, node_id: str, depth: int, direction: str, since: datetime, until: datetime
) -> dict[str, Any]:
    """Fields around the field `node_id` at `since` and at `until` (`column_lineage_for_node` at each), merged."""

    def at(moment: Moment) -> dict[str, Any]:
        return column_lineage_for_node(node_id=node_id, depth=depth, direction=direction, moment=moment)

    body = _diff(at, since, until)
    datasets = sorted({_field_dataset(node) for node in body["graph"]})
    return {**body, "schemaChanges": _schema_changes(datasets, body["from"], body["to"])}


def _field_dataset(node: dict[str, Any]) -> str:
    data = node["data"]
    return f"dataset:{data['namespace']}:{data['dataset']}"


def _diff(read: Callable[[Moment], dict[str, Any]], since: datetime, until: datetime) -> dict[str, Any]:
    before_at, after_at = utc_text(since), utc_text(until)
    before, after = read(Moment(at=before_at)), read(Moment(at=after_at))
    old = _present(before, after, before_at)
    new = _present(after, before, after_at)
    old_edges, new_edges = _edges(before), _edges(after)
    edge_change = {
        key: ADDED if key not in old_edges else REMOVED if key not in new_edges else UNCHANGED
        for key in {*old_edges, *new_edges}
    }
    graph = []
    for node_id in sorted({*old, *new}):
        node = dict(new.get(node_id) or old[node_id])
        node["change"] = ADDED if node_id not in old else REMOVED if node_id not in new else UNCHANGED
        for side in ("inEdges", "outEdges"):
            merged = {(e["origin"], e["destination"]): e for e in (old.get(node_id) or {}).get(side, [])}
            merged.update({(e["origin"], e["destination"]): e for e in (new.get(node_id) or {}).get(side, [])})
            node[side] = [{**edge, "change": edge_change[key]} for key, edge in sorted(merged.items())]
        graph.append(node)
    return {
        "nodeId": after["nodeId"],
        "depth": after["depth"],
        "direction": after["direction"],
        "from": before_at,
        "to": after_at,
        "truncated": before["truncated"] or after["truncated"],
        "graph": graph,
        "changes": {
            "addedNodes": sorted(set(new) - set(old)),
            "removedNodes": sorted(set(old) - set(new)),
            "addedEdges": [_pair(key) for key, change in sorted(edge_change.items()) if change == ADDED],
            "removedEdges": [_pair(key) for key, change in sorted(edge_change.items()) if change == REMOVED],
        },
    }


def _present(body: dict[str, Any], other: dict[str, Any], instant: str) -> dict[str, dict[str, Any]]:
    """The nodes of `body` (the graph at `instant`) by id, less its start if the start did not exist
    then: a traversal always answers its start. A dataset or job did not exist before it was first
    seen; a field (which keeps no first-seen time) did not when it has no lineage then but has at the
    other instant."""
    nodes = {node["id"]: node for node in body["graph"]}
    start = nodes.get(body["nodeId"])
    if start is None or start["inEdges"] or start["outEdges"]:
        return nodes
    first_seen = start["data"].get("firstSeen")
    if first_seen is not None:
        absent = first_seen > instant
    else:
        counterpart = next((node for node in other["graph"] if node["id"] == start["id"]), None)
        absent = bool(counterpart and (counterpart["inEdges"] or counterpart["outEdges"]))
    if absent:
        del nodes[start["id"]]
    return nodes


def _edges(body: dict[str, Any]) -> set[tuple[str, str]]:
    return {(edge["origin"], edge["destination"]) for node in body["graph"] for edge in node["outEdges"]}


def _pair(key: tuple[str, str]) -> dict[str, str]:
    return {"origin": key[0], "destination": key[1]}


def _schema_changes(dataset_ids: list[str], since: str, until: str) -> list[dict[str, Any]]:
    """Each dataset whose schema at `until` differs from its schema at `since` (the newest version first
    seen by then), with the fields added, removed and retyped; a dataset with no schema at either, or
    whose versions differ only by types one of them left empty (`schema_change`), is left out."""
    keys: dict[str, str] = {}
    for dataset_id in dataset_ids:
        for key in node_id_candidate_keys(node_id=dataset_id, label=Label.DATASET):
            keys[key] = dataset_id
    history = listings.dataset_version_history(keys=sorted(keys))
    changes = []
    for key, versions in sorted(history.items(), key=lambda item: keys[item[0]]):
        before, after = _version_at(versions, since), _version_at(versions, until)
        if before is None or after is None or before["version"] == after["version"]:
            continue
        change = schema_change(before["fields"], after["fields"])
        if change is None:
            continue
        old, new = dict(before["fields"]), dict(after["fields"])
        changes.append(
            {
                "datasetId": keys[key],
                "fromVersion": before["version"],
                "toVersion": after["version"],
                "addedFields": change.added,
                "removedFields": change.removed,
                "changedFields": [
                    {"name": name, "fromType": old[name], "toType": new[name]} for name in change.retyped
                ],
                "renamedFields": [{"from": was, "to": now} for was, now in change.renamed],
            }
        )
    return changes


def _version_at(versions: list[dict[str, Any]], instant: str) -> dict[str, Any] | None:
    """The schema a dataset had at `instant`: its newest version first seen by then."""
    seen = [version for version in versions if version["firstSeen"] and version["firstSeen"] <= instant]
    return seen[-1] if seen else None
