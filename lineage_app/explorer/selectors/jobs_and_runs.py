"""Jobs and runs: the job listing, a job's detail page and runs, a run with its events, and streaming runs' progress."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django.utils import timezone

from lineage_app.explorer.selectors.run_commands import COMMAND_RUNS, run_command
from lineage_app.explorer.selectors.run_lineage import io_with_descendants
from lineage_app.graph import listings
from lineage_app.graph.hierarchy import run_hierarchy
from lineage_app.graph.model import Label, NodeType
from lineage_app.graph.node_ids import NodeNotFound, node_id, node_ref_id
from lineage_app.graph.node_resolve import node_resolve
from lineage_app.graph.traversal import run_find
from lineage_app.ingest.selectors import (
    run_events,
    run_streaming_latest,
    run_verification_statuses,
    streaming_silence,
)
from lineage_app.ledger.checkpoint_history import events_ledger_positions
from lineage_app.signatures.selectors import verification_worst


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
    # Current: the job's own or an action's edge is current; former: stale on every edge that has it.
    inputs: set[str] = set()
    outputs: set[str] = set()
    stale_inputs: set[str] = set()
    stale_outputs: set[str] = set()
    real_inputs: set[str] = set()  # current inputs some edge lists for real, not inferred from column lineage
    for io in [found, *found["actionIo"]]:
        for side, current, former in (("inputs", inputs, stale_inputs), ("outputs", outputs, stale_outputs)):
            for dataset_id, stale_since, *inferred in io[side]:
                if dataset_id is not None:
                    (former if stale_since else current).add(dataset_id)
                    if not stale_since and inferred != [True]:
                        real_inputs.add(dataset_id)
    application = found["application"]
    return {
        "id": found["id"],
        "namespace": found["namespace"],
        "name": found["name"],
        "jobType": found["jobType"],
        "facets": json.loads(found["facetsJson"] or "{}"),
        "inputs": sorted(inputs),
        "inferredInputs": sorted(inputs - real_inputs),
        "outputs": sorted(outputs),
        "formerInputs": sorted(stale_inputs - inputs),
        "formerOutputs": sorted(stale_outputs - outputs),
        "latestRun": latest,
        "latestByCommand": _latest_by_command(key),
        **({"streaming": latest["streaming"]} if latest and "streaming" in latest else {}),
        "actions": sorted(node_ref_id((Label.JOB, action)) for action in found["actions"]),
        "application": node_ref_id((Label.JOB, application)) if application else None,
        "dependencies": _dependencies(found["dependencies"]),
    }


def _dependencies(found: dict[str, list[list[Any]]]) -> list[dict[str, Any]]:
    """A job's declared dependencies (`jobDependencies`), one per other job and direction: current if any
    job's declaration of it is, with the jobs that declared it and what the newest declaration says."""
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for direction in ("upstream", "downstream"):
        for job_id, declared_by, stale_since, kind, sequence, status in found[direction]:
            if job_id is None:
                continue
            entry = merged.setdefault(
                (direction, job_id),
                {
                    "jobId": job_id,
                    "direction": direction,
                    "current": False,
                    "declaredBy": [],
                    "dependencyType": kind,
                    "sequenceTriggerRule": sequence,
                    "statusTriggerRule": status,
                },
            )
            entry["current"] = entry["current"] or stale_since is None
            entry["declaredBy"].append(node_ref_id((Label.JOB, declared_by)))
    for entry in merged.values():
        entry["declaredBy"].sort()
    return [merged[key] for key in sorted(merged)]


def job_run_list(*, node_id: str, limit: int, offset: int) -> dict[str, Any]:
    """A job's runs, newest first, with each run's signature verification status."""
    _, key = node_resolve(node_id=node_id, kinds=(NodeType.JOB,))
    count, rows = listings.job_run_page(key=key, limit=limit, offset=offset)
    return {"count": count, "results": _run_summaries(rows)}


def run_for_id(*, run_id: str) -> dict[str, Any]:
    """A run from the graph, with its events from the event log and their worst signature status."""
    found = run_find(run_id=run_id.lower())
    if found is None:
        raise NodeNotFound(f"no run with id {run_id!r}")
    run = dict(found["run"])
    facets = json.loads(run.pop("facetsJson", None) or "{}")
    run.pop("nodeId", None)
    run.pop("tags", None)  # tag search's copy of what the facets' tags say
    trigger = run.pop("trigger", None)
    events = run_events(run_id=run["runId"])
    positions = events_ledger_positions(content_hashes=[event["contentHash"] for event in events])
    events = [{**event, **positions[event["contentHash"]]} for event in events]
    streaming = run_streaming(run_ids=[run["runId"]])
    steps = io_with_descendants(sorted(found["children"])) if found["children"] else {"reads": [], "writes": []}
    return {
        "id": node_id(NodeType.RUN, run["runId"]),
        **run,
        "facets": facets,
        "inputs": sorted(found["inputs"]),
        "outputs": sorted(found["outputs"]),
        "stepInputs": sorted({d["id"] for d in steps["reads"]} - set(found["inputs"])),
        "stepOutputs": sorted({d["id"] for d in steps["writes"]} - set(found["outputs"])),
        "inputSubsets": _subsets(found["inputSubsets"]),
        "outputSubsets": _subsets(found["outputSubsets"]),
        "children": sorted(found["children"]),
        "hierarchy": run_hierarchy(run_id=run["runId"]),
        "command": run_command(listings.run_step_kinds(run_ids=[run["runId"]]).get(run["runId"], []), trigger),
        "verification": verification_worst(statuses=[event["verification"] or "" for event in events]),
        "events": events,
        **({"streaming": streaming[run["runId"]]} if streaming else {}),
    }


def _subsets(found: list[list[str]]) -> list[dict[str, str]]:
    return [{"datasetId": dataset_id, "subset": subset} for dataset_id, subset in sorted(found)]


def run_streaming(*, run_ids: list[str]) -> dict[str, dict[str, Any]]:
    """The `streaming` block of each run whose latest event reports a streaming query's progress (others have none).

    A run not yet ended is `stalled` when nothing came from it for `STREAMING_STALL_INTERVALS` of the
    query's own progress intervals (`ingest.selectors.streaming_silence`)."""
    now = timezone.now()
    blocks = {}
    for run_id, latest in run_streaming_latest(run_ids=run_ids).items():
        facet = latest["facet"]
        interval = _number(facet.get("intervalSeconds")) or 0.0
        batch = facet.get("batchId")
        blocks[run_id] = {
            "runningSince": _text(facet.get("startedAt")),
            "lastProgressAt": _text(facet.get("progressAt")),
            "inputRowsPerSecond": _number(facet.get("inputRowsPerSecond")),
            "processedRowsPerSecond": _number(facet.get("processedRowsPerSecond")),
            "batchId": batch if isinstance(batch, int) and not isinstance(batch, bool) else None,
            "intervalSeconds": interval,
            "stalled": streaming_silence(latest=latest, now=now) is not None,
        }
    return blocks


def _run_summaries(
    rows: list[dict[str, Any]], steps: Mapping[str, list[dict[str, Any]]] | None = None
) -> list[dict[str, Any]]:
    """Runs as listed, each with its worst signature status, the command it ran (`run_commands`, from `steps` when
    the caller has read them) and, when it streams, its `streaming` block."""
    run_ids = [row["runId"] for row in rows]
    verified = _verifications(run_ids)
    live = run_streaming(run_ids=run_ids)
    steps = listings.run_step_kinds(run_ids=run_ids) if steps is None else steps
    return [
        {
            **{name: value for name, value in row.items() if name != "trigger"},  # its command says it
            "verification": verified[row["runId"]],
            "command": run_command(steps.get(row["runId"], []), row.get("trigger")),
            **({"streaming": live[row["runId"]]} if row["runId"] in live else {}),
        }
        for row in rows
    ]


def _latest_by_command(key: str) -> list[dict[str, Any]]:
    """The latest run of each command among a job's `COMMAND_RUNS` newest runs, by command: a dbt project's
    failed `test` beside its completed `run`, rather than one status for both. Only those runs are summarised
    (their events' signatures read), not all the runs looked through."""
    _, rows = listings.job_run_page(key=key, limit=COMMAND_RUNS, offset=0)
    steps = listings.run_step_kinds(run_ids=[row["runId"] for row in rows])
    latest: dict[str, dict[str, Any]] = {}
    for row in rows:  # newest first
        command = run_command(steps.get(row["runId"], []), row.get("trigger"))
        if command is not None:
            latest.setdefault(command, row)
    summaries = dict(zip(latest, _run_summaries(list(latest.values()), steps), strict=True))
    return [{"command": command, "run": summaries[command]} for command in sorted(summaries)]


def _verifications(run_ids: list[str]) -> dict[str, str | None]:
    """Each run's worst signature status over its logged events (one query for a page of runs)."""
    statuses = run_verification_statuses(run_ids=run_ids)
    return {run_id: verification_worst(statuses=statuses.get(run_id, [])) for run_id in run_ids}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
