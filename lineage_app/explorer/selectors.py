"""Lineage and listing reads shaped for the API: Marquez-style node lists with in / out edges, pages, details."""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime
from difflib import SequenceMatcher
from typing import Any

from django.conf import settings
from django.utils import timezone

from lineage_app.graph import impact, listings
from lineage_app.graph.failure_cause import UNKNOWN
from lineage_app.graph.model import API_TYPES, FAILED_STATES, KEY_SEPARATOR, Label, NodeType, RunState
from lineage_app.graph.node_ids import NodeNotFound, node_id, node_ref_id
from lineage_app.graph.node_resolve import node_resolve
from lineage_app.graph.run_state import STATE_AFTER
from lineage_app.graph.traversal import (
    LineageGraph,
    NodeRef,
    job_lineage_traverse,
    lineage_traverse,
    path_length_find,
    run_find,
)
from lineage_app.ingest.selectors import run_events, run_streaming_latest, run_verification_statuses
from lineage_app.instants import utc_text
from lineage_app.signatures.selectors import verification_worst

DIRECTIONS = {"upstream": ("upstream",), "downstream": ("downstream",), "both": ("upstream", "downstream")}
SEARCH_TYPES = {"dataset": Label.DATASET, "job": Label.JOB, "field": Label.FIELD}
BLAST_DEPTH = 6  # hops downstream of a failure's outputs (dataset -> job -> dataset is two)
BLAST_LIMIT = 50  # datasets listed in one failure's blast radius (`total` counts them all)
STREAK_LIMIT = 500  # runs followed back when counting a job's consecutive failures
LAST_RUNS = 10


class VersionNotFound(LookupError):
    def __init__(self, message: str, *, parameter: str) -> None:
        super().__init__(message)
        self.parameter = parameter


def _max_nodes() -> int:
    return settings.LINEAGE_MAX_NODES


# ---- lineage ----


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
    in_edges: dict[NodeRef, list[dict[str, Any]]] = defaultdict(list)
    out_edges: dict[NodeRef, list[dict[str, Any]]] = defaultdict(list)
    for origin, destination, properties in sorted(graph.edges, key=lambda e: (e[0], e[1], str(e[2]) if e[2] else "")):
        edge: dict[str, Any] = {"origin": ids[origin], "destination": ids[destination]}
        if edge_fields:
            edge.update(properties)
            edge["indirect"] = bool(edge.get("indirect"))
        out_edges[origin].append(edge)
        in_edges[destination].append(edge)
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


def lineage_for_node(
    *, node_id: str, depth: int, direction: str, as_of: datetime | None, level: str = "action"
) -> dict[str, Any]:
    """Datasets and jobs within `depth` hops of `node_id` (dataset -> job -> dataset is two hops).

    At `application` level each action job (one whose latest run has a parent run) is replaced
    by its application job, whose data lists its `actions`; at `action` level each action job's
    data names its `application`. An application job starts from its action jobs at either level.
    The default here is `action`, the graph as recorded; the API's default is `application`.
    """
    start = node_resolve(node_id=node_id)
    graph = job_lineage_traverse(
        start=start,
        depth=depth,
        directions=DIRECTIONS[direction],
        as_of=utc_text(as_of) if as_of else None,
        max_nodes=_max_nodes(),
        roll_up=level == "application",
    )
    return _graph_body(graph, start, depth=depth, direction=direction, edge_fields=False, level=level)


def column_lineage_for_node(*, node_id: str, depth: int, direction: str, as_of: datetime | None) -> dict[str, Any]:
    """Fields within `depth` derivations of the field `node_id`, with each edge's job and transformation."""
    start = node_resolve(node_id=node_id, kinds=(NodeType.DATASET_FIELD,))
    graph = lineage_traverse(
        start=start,
        depth=depth,
        directions=DIRECTIONS[direction],
        as_of=utc_text(as_of) if as_of else None,
        max_nodes=_max_nodes(),
    )
    return _graph_body(graph, start, depth=depth, direction=direction, edge_fields=True)


# ---- listings ----


def namespace_list(*, limit: int, offset: int) -> dict[str, Any]:
    count, rows = listings.namespace_page(limit=limit, offset=offset)
    return {"count": count, "results": rows}


def dataset_list(*, namespace: str | None, q: str | None, limit: int, offset: int) -> dict[str, Any]:
    count, rows = listings.dataset_page(namespace=namespace, q=q, limit=limit, offset=offset)
    return {
        "count": count,
        "results": [
            {
                "id": row["nodeId"],
                "namespace": row["namespace"],
                "name": row["name"],
                "fieldCount": row["fieldCount"] or 0,
                "currentVersion": row["currentVersion"],
                "lastSeen": row["lastSeen"],
                "lastRunState": row["lastRunState"],
            }
            for row in rows
        ],
    }


def job_list(*, namespace: str | None, q: str | None, limit: int, offset: int) -> dict[str, Any]:
    count, rows = listings.job_page(namespace=namespace, q=q, limit=limit, offset=offset)
    return {
        "count": count,
        "results": [
            {
                "id": row["nodeId"],
                "namespace": row["namespace"],
                "name": row["name"],
                "jobType": row["jobType"],
                "latestRunState": row["latestRunState"],
                "latestRunTime": row["latestRunTime"],
            }
            for row in rows
        ],
    }


def _facets(blob: str | None) -> dict[str, Any]:
    return json.loads(blob) if blob else {}


def dataset_detail(*, node_id: str) -> dict[str, Any]:
    """A dataset with its fields, schema versions (oldest first), owners, producers, consumers and last runs."""
    _, key = node_resolve(node_id=node_id, kinds=(NodeType.DATASET,))
    found = listings.dataset_find(key=key, last_runs=LAST_RUNS)
    if found is None:
        raise NodeNotFound(f"no dataset with id {node_id!r}")
    return {
        "id": found["id"],
        "namespace": found["namespace"],
        "name": found["name"],
        "facets": _facets(found["facetsJson"]),
        "currentVersion": found["currentVersion"],
        "fields": found["fields"],
        "versions": [
            {
                "version": v["version"],
                "firstSeen": v["firstSeen"],
                "lastSeen": v["lastSeen"],
                "createdByRun": v["createdByRun"],
                "fields": [{"name": n, "type": t} for n, t in zip(v["fieldNames"], v["fieldTypes"], strict=True)],
            }
            for v in found["versions"]
        ],
        "owners": found["owners"],
        "producers": found["producers"],
        "consumers": found["consumers"],
        "lastRuns": found["lastRuns"],
        "aliases": [
            {
                "namespace": a["namespace"],
                "name": a["name"],
                "source": {
                    "kind": a["kind"],
                    "type": a["type"],
                    "job": a["job"],
                    "producer": a["producer"],
                    "event": a["event"],
                    "firstSeen": a["firstSeen"],
                },
            }
            for a in listings.dataset_aliases(key=key)
        ],
    }


def dataset_version_diff(*, node_id: str, from_version: str | None, to_version: str | None) -> dict[str, Any]:
    """Fields added, removed and retyped between two schema versions, and every dataset downstream.

    `to_version` defaults to the current version and `from_version` to the one before it.
    """
    start = node_resolve(node_id=node_id, kinds=(NodeType.DATASET,))
    detail = listings.dataset_find(key=start[1], last_runs=0)
    assert detail is not None  # just resolved
    order = [v["version"] for v in detail["versions"]]
    to_version = to_version or detail["currentVersion"] or (order[-1] if order else None)
    if to_version is None or to_version not in order:
        raise VersionNotFound(f"{node_id!r} has no schema version {to_version!r}", parameter="to")
    if from_version is None:
        index = order.index(to_version)
        from_version = order[index - 1] if index > 0 else to_version
    if from_version is None or from_version not in order:
        raise VersionNotFound(f"{node_id!r} has no schema version {from_version!r}", parameter="from")
    fields = listings.dataset_version_fields(key=start[1], versions=[from_version, to_version])
    before, after = dict(fields[from_version]), dict(fields[to_version])
    graph = lineage_traverse(
        start=start, depth=settings.LINEAGE_MAX_DEPTH, directions=("downstream",), as_of=None, max_nodes=_max_nodes()
    )
    downstream = sorted(
        summary["nodeId"] for ref, summary in graph.nodes.items() if ref[0] is Label.DATASET and ref != start
    )
    return {
        "from": from_version,
        "to": to_version,
        "added": [{"name": n, "type": t} for n, t in fields[to_version] if n not in before],
        "removed": [{"name": n, "type": t} for n, t in fields[from_version] if n not in after],
        "changed": [
            {"name": n, "fromType": before[n], "toType": t}
            for n, t in fields[to_version]
            if n in before and before[n] != t
        ],
        "downstream": downstream,
        "truncated": graph.truncated,
    }


def _verifications(run_ids: list[str]) -> dict[str, str | None]:
    """Each run's worst signature status over its logged events (one query for a page of runs)."""
    statuses = run_verification_statuses(run_ids=run_ids)
    return {run_id: verification_worst(statuses=statuses.get(run_id, [])) for run_id in run_ids}


def _run_summaries(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    run_ids = [row["runId"] for row in rows]
    verified = _verifications(run_ids)
    live = run_streaming(run_ids=run_ids)
    return [
        {
            **row,
            "verification": verified[row["runId"]],
            **({"streaming": live[row["runId"]]} if row["runId"] in live else {}),
        }
        for row in rows
    ]


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def run_streaming(*, run_ids: list[str]) -> dict[str, dict[str, Any]]:
    """The `streaming` block of each run whose latest event reports a streaming query's progress (others have none).

    A run not yet ended is `stalled` when nothing came from it for `STREAMING_STALL_INTERVALS` of the
    query's own progress intervals."""
    now = timezone.now()
    blocks = {}
    for run_id, latest in run_streaming_latest(run_ids=run_ids).items():
        facet = latest["facet"]
        interval = _number(facet.get("intervalSeconds")) or 0.0
        silent = (now - latest["eventTime"]).total_seconds()
        live = STATE_AFTER.get(latest["eventType"]) == RunState.RUNNING
        batch = facet.get("batchId")
        blocks[run_id] = {
            "runningSince": _text(facet.get("startedAt")),
            "lastProgressAt": _text(facet.get("progressAt")),
            "inputRowsPerSecond": _number(facet.get("inputRowsPerSecond")),
            "processedRowsPerSecond": _number(facet.get("processedRowsPerSecond")),
            "batchId": batch if isinstance(batch, int) and not isinstance(batch, bool) else None,
            "intervalSeconds": interval,
            "stalled": live and interval > 0 and silent > settings.STREAMING_STALL_INTERVALS * interval,
        }
    return blocks


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def job_detail(*, node_id: str) -> dict[str, Any]:
    """A job with its facets, input and output datasets and latest run.

    An application job's inputs and outputs are its own and its action jobs' (`actions`); an
    action job names its `application`.
    """
    _, key = node_resolve(node_id=node_id, kinds=(NodeType.JOB,))
    found = listings.job_find(key=key)
    if found is None:
        raise NodeNotFound(f"no job with id {node_id!r}")
    latest = _run_summaries([found["latestRun"]])[0] if found["latestRun"] else None
    inputs, outputs = set(found["inputs"]), set(found["outputs"])
    for action in found["actionIo"]:
        inputs.update(action["inputs"])
        outputs.update(action["outputs"])
    application = found["application"]
    return {
        "id": found["id"],
        "namespace": found["namespace"],
        "name": found["name"],
        "jobType": found["jobType"],
        "facets": _facets(found["facetsJson"]),
        "inputs": sorted(inputs),
        "outputs": sorted(outputs),
        "latestRun": latest,
        **({"streaming": latest["streaming"]} if latest and "streaming" in latest else {}),
        "actions": sorted(node_ref_id((Label.JOB, action)) for action in found["actions"]),
        "application": node_ref_id((Label.JOB, application)) if application else None,
    }


def job_run_list(*, node_id: str, limit: int, offset: int) -> dict[str, Any]:
    """A job's runs, newest first, with each run's signature verification status."""
    _, key = node_resolve(node_id=node_id, kinds=(NodeType.JOB,))
    count, rows = listings.job_run_page(key=key, limit=limit, offset=offset)
    return {"count": count, "results": _run_summaries(rows)}


def _headline(row: dict[str, Any], children: list[dict[str, Any]]) -> dict[str, Any]:
    """The cause a failure is headlined by: its own, unless that says nothing (no class, or `unknown`)
    and one of its failed child (action) runs says more; the first such child to end, then."""
    own = {"cause": row["cause"], "classification": row["classification"], "causeRunId": row["runId"]}
    if row["classification"] not in (None, UNKNOWN):
        return own
    said = [c for c in children if c["classification"] not in (None, UNKNOWN)] or (
        [] if row["cause"] else [c for c in children if c["cause"]]
    )
    if not said:
        return own
    return {"cause": said[0]["cause"], "classification": said[0]["classification"], "causeRunId": said[0]["runId"]}


def _failure_item(row: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    """A failure as the API answers it, and the natural keys of the datasets it should have written."""
    children = row.pop("children")
    outputs = set(row.pop("wrote")) | set(row.pop("declared"))
    keys = set(row.pop("wroteKeys")) | set(row.pop("declaredKeys"))
    for child in children:
        outputs |= set(child["wrote"]) | set(child["declared"])
        keys |= set(child["wroteKeys"]) | set(child["declaredKeys"])
    item = {
        **row,
        **_headline(row, children),
        "failedActions": sorted({child["job"] for child in children}),
        "outputs": sorted(outputs),
    }
    return item, keys


def _blast_radius(keys: set[str]) -> dict[str, Any]:
    """The datasets a failure should have written and everything downstream of them within `BLAST_DEPTH`
    hops (the impact traversal), nearest first, with their owners; at most `BLAST_LIMIT` listed."""
    starts: list[NodeRef] = [(Label.DATASET, key) for key in sorted(keys)]
    if not starts:
        return {"datasets": [], "owners": [], "total": 0, "truncated": False, "depth": BLAST_DEPTH}
    traversal = impact.impact_traverse(starts=starts, depth=BLAST_DEPTH, as_of=None)
    starts.sort(key=traversal.node_id)
    reached = [*starts, *(ref for ref in traversal.assets() if ref[0] is Label.DATASET)]
    listed = reached[:BLAST_LIMIT]
    details = impact.impact_details(refs=listed)
    datasets: list[dict[str, Any]] = []
    for ref in listed:
        detail = details.get(ref, {})
        namespace, name = ref[1].split(KEY_SEPARATOR)
        datasets.append(
            {
                "id": traversal.node_id(ref),
                "namespace": namespace,
                "name": name,
                "distance": traversal.seen[ref].distance,
                "owners": sorted({owner["name"] for owner in detail.get("owners", [])}),
            }
        )
    return {
        "datasets": datasets,
        "owners": sorted({owner for dataset in datasets for owner in dataset["owners"]}),
        "total": len(reached),
        "truncated": len(reached) > len(listed),
        "depth": BLAST_DEPTH,
    }


def _failure_filters(
    *,
    namespace: str | None,
    job: str | None,
    classification: str | None,
    since: datetime | None,
    until: datetime | None,
) -> dict[str, Any]:
    return {
        "states": FAILED_STATES,
        "namespace": namespace,
        "job_key": node_resolve(node_id=job, kinds=(NodeType.JOB,))[1] if job else None,
        "classification": classification,
        "since": utc_text(since) if since else None,
        "until": utc_text(until) if until else None,
    }


def failure_list(
    *,
    namespace: str | None,
    job: str | None,
    since: datetime | None,
    until: datetime | None,
    limit: int,
    offset: int,
    classification: str | None = None,
) -> dict[str, Any]:
    """Failed and aborted runs, newest end first, each headlined by its root cause and classification,
    with the datasets it (and its failed child runs) should have written."""
    count, rows = listings.failure_page(
        **_failure_filters(namespace=namespace, job=job, classification=classification, since=since, until=until),
        limit=limit,
        offset=offset,
    )
    return {"count": count, "results": [_failure_item(row)[0] for row in rows]}


def failure_job_list(
    *,
    namespace: str | None,
    job: str | None,
    classification: str | None,
    since: datetime | None,
    until: datetime | None,
    limit: int,
    offset: int,
) -> dict[str, Any]:
    """Jobs with a matching failure, the latest failure first: how long each has been failing, its last
    failure's cause, and the blast radius of that failure (datasets downstream and their owners).

    A child (action) run whose parent run failed too is told under the parent's job.
    """
    count, groups = listings.failure_job_page(
        **_failure_filters(namespace=namespace, job=job, classification=classification, since=since, until=until),
        limit=limit,
        offset=offset,
        streak_limit=STREAK_LIMIT,
    )
    results = []
    for group in groups:
        last, keys = _failure_item(group["lastFailure"]) if group["lastFailure"] else (None, set())
        streak = group["streak"]["runs"]
        results.append(
            {
                "job": group["job"],
                "namespace": group["namespace"],
                "name": group["name"],
                "failureCount": group["failureCount"],
                "consecutiveFailures": len(streak),
                "consecutiveFailuresCapped": group["streak"]["capped"],
                "failingSince": (streak[-1]["startedAt"] or streak[-1]["endedAt"]) if streak else None,
                "latestRunState": group["streak"]["latestState"],
                "lastFailure": last,
                "blastRadius": _blast_radius(keys),
            }
        )
    return {"count": count, "results": results}


def node_search(*, q: str, types: list[str], limit: int) -> dict[str, Any]:
    """Datasets, jobs and fields whose name contains `q`: exact match, then prefix, then substring;
    shorter names first; case-insensitive."""
    rows = listings.search_rows(q=q, labels=[SEARCH_TYPES[t] for t in types], limit=limit)
    if "dataset" in types:  # a dataset is found by any of its names; listed once, at its best rank
        best = {row["id"]: row for row in rows if row["label"] is Label.DATASET}
        for row in listings.dataset_alias_search_rows(q=q, limit=limit):
            if row["id"] not in best or row["rank"] < best[row["id"]]["rank"]:
                best[row["id"]] = row
        rows = [row for row in rows if row["label"] is not Label.DATASET] + list(best.values())
    rows.sort(key=lambda row: (row["rank"], len(row["name"]), row["id"]))
    results = []
    for row in rows[:limit]:
        item = {"id": row["id"], "type": API_TYPES[row["label"]], "namespace": row["namespace"], "name": row["name"]}
        if row["label"] is Label.FIELD:
            item["dataset"] = row["dataset"]
        elif row["label"] is Label.JOB:
            item["actionCount"] = row["actionCount"]
            item["application"] = node_ref_id((Label.JOB, row["application"])) if row["application"] else None
        results.append(item)
    return {"results": results}


def run_for_id(*, run_id: str) -> dict[str, Any]:
    """A run from the graph, with its events from the event log and their worst signature status."""
    found = run_find(run_id=run_id.lower())
    if found is None:
        raise NodeNotFound(f"no run with id {run_id!r}")
    run = dict(found["run"])
    facets = json.loads(run.pop("facetsJson", None) or "{}")
    run.pop("nodeId", None)
    events = run_events(run_id=run["runId"])
    streaming = run_streaming(run_ids=[run["runId"]])
    return {
        "id": node_id(NodeType.RUN, run["runId"]),
        **run,
        "facets": facets,
        "inputs": sorted(found["inputs"]),
        "outputs": sorted(found["outputs"]),
        "children": sorted(found["children"]),
        "verification": verification_worst(statuses=[event["verification"] or "" for event in events]),
        "events": events,
        **({"streaming": streaming[run["runId"]]} if streaming else {}),
    }


# ---- "why isn't this connected?" ----

NEAR_MISS_LIMIT = 10  # explanations in one answer
NEAR_MISS_SCAN = 200  # datasets one job away, and same-name datasets, looked at per side
SIMILAR = 0.8  # table-name similarity (difflib ratio) that counts as "similarly named"


class NodeParameterNotFound(NodeNotFound):
    def __init__(self, message: str, *, parameter: str) -> None:
        super().__init__(message)
        self.parameter = parameter


def _table_name(name: str) -> str:
    """The last path segment or dotted part of a dataset name: `warehouse/orders` and `sales.orders` -> `orders`."""
    return name.rstrip("/").rsplit("/", 1)[-1].rsplit(".", 1)[-1].lower()


def _similar(left: str, right: str) -> bool:
    a, b = _table_name(left), _table_name(right)
    return a == b or SequenceMatcher(None, a, b).ratio() >= SIMILAR


def dataset_near_miss(*, a: str, b: str) -> dict[str, Any]:
    """Why two datasets have no lineage path, as the nearest near-misses: same name in another namespace,
    an alias of one seen elsewhere, a job that read one and wrote a similarly named one; or that they are
    connected, with the path length."""
    refs = {}
    for parameter, value in (("a", a), ("b", b)):
        try:
            refs[parameter] = node_resolve(node_id=value, kinds=(NodeType.DATASET,))[1]
        except NodeNotFound as exc:
            raise NodeParameterNotFound(str(exc), parameter=parameter) from exc
    facts = {
        side: listings.near_miss_facts(key=key, name=key.split(KEY_SEPARATOR, 1)[1], limit=NEAR_MISS_SCAN)
        for side, key in refs.items()
    }
    ids = {side: facts[side]["id"] for side in refs}
    answer: dict[str, Any] = {
        "a": ids["a"],
        "b": ids["b"],
        "connected": False,
        "pathLength": None,
        "direction": None,
        "nearMisses": [],
    }
    if refs["a"] == refs["b"]:
        return {**answer, "connected": True, "pathLength": 0, "direction": "same dataset"}
    for direction, (start, goal) in (("a to b", ("a", "b")), ("b to a", ("b", "a"))):
        length = path_length_find(
            start=(Label.DATASET, refs[start]), goal=(Label.DATASET, refs[goal]), depth=settings.LINEAGE_MAX_DEPTH
        )
        if length is not None:
            return {**answer, "connected": True, "pathLength": length, "direction": direction}
    misses: list[dict[str, Any]] = []
    fa, fb = facts["a"], facts["b"]
    if fa["name"] == fb["name"]:
        misses.append(
            {
                "kind": "same_name_other_namespace",
                "via": [],
                "message": f"both are named {fa['name']!r}, in namespaces {fa['namespace']!r} and "
                f"{fb['namespace']!r}: one table under two namespaces? Add a site rule "
                "(NAMESPACE_ALIASES) or a symlinks facet.",
            }
        )
    elif _table_name(fa["name"]) == _table_name(fb["name"]):
        misses.append(
            {
                "kind": "same_table_name",
                "via": [],
                "message": f"both end in {_table_name(fa['name'])!r} ({fa['name']!r} in {fa['namespace']!r}, "
                f"{fb['name']!r} in {fb['namespace']!r})",
            }
        )
    for this, other in (("a", "b"), ("b", "a")):
        for namespace, name in facts[this]["aliases"]:
            own = (namespace, name) == (facts[this]["namespace"], facts[this]["name"])
            if not own and _similar(name, facts[other]["name"]):
                misses.append(
                    {
                        "kind": "alias_seen_elsewhere",
                        "via": [],
                        "message": f"{ids[this]} is also named {name!r} in {namespace!r}, like "
                        f"{ids[other]}; no event links it to {ids[other]}",
                    }
                )
        for row in facts[this]["sameName"]:
            if row["id"] == ids[other]:
                misses.append(
                    {
                        "kind": "alias_seen_elsewhere",
                        "via": [],
                        "message": f"{ids[other]} was also named {row['name']!r} (in {row['namespace']!r}), "
                        f"the name of {ids[this]}",
                    }
                )
    for this, other in (("a", "b"), ("b", "a")):
        for row in facts[this]["neighbours"]:
            if row["id"] in ids.values() or not _similar(row["name"], facts[other]["name"]):
                continue
            if row["relation"] == "wrote":
                message = (
                    f"{row['job']} read {ids[this]} and wrote {row['id']}, named like {ids[other]}: "
                    "the same table under another name?"
                )
            else:
                message = (
                    f"{row['job']} read {row['id']}, named like {ids[other]}, and wrote {ids[this]}: "
                    "the same table under another name?"
                )
            misses.append({"kind": "similar_name_one_job_away", "via": [row["job"], row["id"]], "message": message})
    answer["nearMisses"] = misses[:NEAR_MISS_LIMIT]
    return answer
