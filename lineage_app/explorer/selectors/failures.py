"""Failed and aborted runs, each headlined by its root cause, and the same grouped by job with a blast radius."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from lineage_app.explorer.selectors.blast_radius import failure_blast_radius
from lineage_app.explorer.selectors.run_lineage import run_lineage
from lineage_app.graph import listings
from lineage_app.graph.failure_cause import DATA_QUALITY, UNKNOWN
from lineage_app.graph.model import FAILED_STATES, NodeType
from lineage_app.graph.node_resolve import node_resolve
from lineage_app.instants import utc_text

STREAK_LIMIT = 500  # runs followed back when counting a job's consecutive failures


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
    return {"count": count, "results": [_failure_job(group) for group in groups]}


def _failure_job(group: dict[str, Any]) -> dict[str, Any]:
    """A job's failures as the API answers them: its streak, its last failure and that failure's blast radius."""
    last, keys = _failure_item(group["lastFailure"]) if group["lastFailure"] else (None, set())
    streak = group["streak"]["runs"]
    return {
        "job": group["job"],
        "namespace": group["namespace"],
        "name": group["name"],
        "failureCount": group["failureCount"],
        "consecutiveFailures": len(streak),
        "consecutiveFailuresCapped": group["streak"]["capped"],
        "failingSince": (streak[-1]["startedAt"] or streak[-1]["endedAt"]) if streak else None,
        "latestRunState": group["streak"]["latestState"],
        "lastFailure": last,
        "sinceLastSuccess": _since_last_success(last["runId"]) if last else None,
        "blastRadius": failure_blast_radius(keys=keys),
    }


def _since_last_success(run_id: str) -> dict[str, Any] | None:
    """What a failed run read or wrote that its job's last successful run did not, and the reverse
    ("new input since the last success: …"); None when the job never completed a run before it."""
    lineage = run_lineage(run_id=run_id)
    if lineage["changes"] is None:
        return None
    return {"runId": lineage["previousRunId"], **lineage["changes"]}


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


def _failure_item(row: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    """A failure as the API answers it, and the natural keys of the datasets its blast radius starts at:
    those it should have written; for a data-quality failure, those its failing checks tested."""
    children = row.pop("children")
    outputs = set(row.pop("wrote")) | set(row.pop("declared"))
    keys = set(row.pop("wroteKeys")) | set(row.pop("declaredKeys"))
    tested, tested_keys = set(row.pop("tested")), set(row.pop("testedKeys"))
    for child in children:
        outputs |= set(child["wrote"]) | set(child["declared"])
        keys |= set(child["wroteKeys"]) | set(child["declaredKeys"])
        tested |= set(child["tested"])
        tested_keys |= set(child["testedKeys"])
    headline = _headline(row, children)
    item = {
        **row,
        **headline,
        "failedActions": sorted({child["job"] for child in children}),
        "outputs": sorted(outputs),
        "testedDatasets": sorted(tested),
    }
    return item, tested_keys if headline["classification"] == DATA_QUALITY and tested_keys else keys


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
