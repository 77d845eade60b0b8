"""Exactly what one run read and wrote (its child runs' included), and how that differs from its job's
previous completed run: "+ reads C, - reads B"."""

from __future__ import annotations

from typing import Any

from lineage_app.explorer.selectors.run_commands import COMMAND_RUNS, run_command
from lineage_app.graph import listings
from lineage_app.graph.model import NodeType, natural_key, run_order_key
from lineage_app.graph.node_ids import NodeNotFound, node_id
from lineage_app.graph.traversal import MAX_NESTING, runs_properties


def run_lineage(*, run_id: str) -> dict[str, Any]:
    """The datasets `run_id` and its child runs (a Spark application's actions, an Airflow DAG's tasks)
    read and wrote, the job's previous completed run (the latest to complete before this one ended, or
    before its last event if it has not; of the same command, for a run that names one: a dbt `test` is
    compared with the last `test`, not with the `run` that built the models), and what was added and
    removed since that run."""
    run_id = run_id.lower()
    found = runs_properties(run_ids=[run_id]).get(run_id)
    if found is None:
        raise NodeNotFound(f"no run with id {run_id!r}")
    own = io_with_descendants([run_id])
    before = found.get("completedOrder") or run_order_key(
        found.get("endedAt") or found.get("lastEventTime") or "", run_id
    )
    job_key = natural_key(found.get("jobNamespace") or "", found.get("jobName") or "")
    previous = _previous_of_command(
        job_key, before, run_command(listings.run_step_kinds(run_ids=[run_id]).get(run_id, []), found.get("trigger"))
    )
    earlier = io_with_descendants([previous["runId"]]) if previous else None
    return {
        "runId": run_id,
        "jobId": node_id(NodeType.JOB, found.get("jobNamespace") or "", found.get("jobName") or ""),
        "state": found.get("state"),
        "startedAt": found.get("startedAt"),
        "endedAt": found.get("endedAt"),
        "reads": own["reads"],
        "writes": own["writes"],
        "previousRunId": previous["runId"] if previous else None,
        "changes": _changes(own, earlier) if earlier is not None else None,
    }


def _previous_of_command(job_key: str, before: str, command: str | None) -> dict[str, Any] | None:
    """The job's latest completed run before `before` that ran `command` (any run, when `command` is None), among
    its `COMMAND_RUNS` latest."""
    candidates = listings.previous_completed_runs(job_key=job_key, before=before, limit=COMMAND_RUNS if command else 1)
    if command is None:
        return candidates[0] if candidates else None
    steps = listings.run_step_kinds(run_ids=[c["runId"] for c in candidates])
    return next((c for c in candidates if run_command(steps.get(c["runId"], []), c["trigger"]) == command), None)


def io_with_descendants(run_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    """What the runs and their descendants (up to `MAX_NESTING` levels) read and wrote, each dataset once, by id."""
    reads: dict[str, dict[str, Any]] = {}
    writes: dict[str, dict[str, Any]] = {}
    asked, ask = set(run_ids), sorted(set(run_ids))
    for _ in range(MAX_NESTING):
        if not ask:
            break
        found = listings.runs_io(run_ids=ask)
        fresh: list[str] = []
        for io in found.values():
            reads.update((d["id"], d) for d in io["reads"])
            writes.update((d["id"], d) for d in io["writes"])
            fresh.extend(child for child in io["children"] if child not in asked)
        asked.update(fresh)
        ask = sorted(set(fresh))
    return {"reads": [reads[i] for i in sorted(reads)], "writes": [writes[i] for i in sorted(writes)]}


def _changes(own: dict[str, list[dict[str, Any]]], earlier: dict[str, list[dict[str, Any]]]) -> dict[str, list[str]]:
    def ids(io: dict[str, list[dict[str, Any]]], side: str) -> set[str]:
        return {d["id"] for d in io[side]}

    return {
        "addedReads": sorted(ids(own, "reads") - ids(earlier, "reads")),
        "removedReads": sorted(ids(earlier, "reads") - ids(own, "reads")),
        "addedWrites": sorted(ids(own, "writes") - ids(earlier, "writes")),
        "removedWrites": sorted(ids(earlier, "writes") - ids(own, "writes")),
    }
