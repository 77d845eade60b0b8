"""When a lineage edge holds: the completed runs that confirm a job's edges, and when an edge turned stale.

A job's edges (`INPUT_TO`, `OUTPUTS`, and the `DERIVES` edges it wrote) each keep the latest completed
run that confirmed them (`confirmedOrder`, `confirmedBy`, `confirmedAt`: a maximum, written with the run's
fold) and their sightings (`firstSeen`, `lastSeen`, by any run). An edge is current until a later
completed run of its job leaves it out, after a grace (`StaleGrace`); it is then stale, with
`staleSince` the end of that run. A running run whose job emits complete snapshots confirms (and
retires) by its latest snapshot, and a job's latest JobEvent (static lineage) by what it declares.
`validity_settle` derives `staleSince` from the job's confirmations in the graph, never from the batch,
so it comes out the same whatever order the events arrived in.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from neo4j import ManagedTransaction

from lineage_app.graph import lookups, writes
from lineage_app.graph.driver import records
from lineage_app.graph.model import KEY_SEPARATOR, run_order_key
from lineage_app.instants import utc_text


@dataclass(frozen=True, slots=True)
class StaleGrace:
    """How long an edge a job's completed runs leave out stays current: until `runs` completed runs
    have left it out, the last of them ending at least `days` after the edge was last seen."""

    runs: int = 1
    days: float = 0.0


# A job's namespace -> the grace its edges get (settings, with per-namespace overrides).
GraceFor = Callable[[str], StaleGrace]


def no_grace(_namespace: str) -> StaleGrace:
    return StaleGrace()


def _since(confirmed_order: str | None, last_seen: str | None) -> str:
    """The moment an edge was last confirmed or seen, as a confirmation order key ("" if never)."""
    sighting = run_order_key(last_seen, "") if last_seen else ""
    return max(confirmed_order or "", sighting)


def stale_since(
    *,
    confirmed_order: str | None,
    last_seen: str | None,
    later_runs: Sequence[tuple[str, str]],
    grace: StaleGrace,
    retirements: Sequence[tuple[str, str]] = (),
) -> str | None:
    """The end of the completed run that retired the edge, or None while it is current.

    `later_runs` are the job's completed runs as (completedOrder, endedAt), in order; those after the
    edge's last confirmation or sighting count, and the first of them that is at least `grace.runs`
    along and ends `grace.days` or more after that moment retires the edge. A sighting by a run that
    has not completed (running, failed) keeps the edge current: a failed run never retires anything.
    `retirements` are explicit ones on the edge's dataset, (order key, time): its latest DROP, and for a
    derivation its latest deleted `columnLineage` facet; each retires an edge last seen before it at
    once, with no grace. Whichever retires the edge first says since when it is stale.
    """
    since = _since(confirmed_order, last_seen)
    if not since:
        return None
    retired = [at for order, at in retirements if order > since]
    by_runs = _retired_by_runs(since, later_runs, grace)
    return min([*retired, *([by_runs] if by_runs else [])], default=None)


def _retired_by_runs(since: str, later_runs: Sequence[tuple[str, str]], grace: StaleGrace) -> str | None:
    since_time = since.split(KEY_SEPARATOR, 1)[0]
    not_before = _plus_days(since_time, grace.days) if grace.days > 0 else ""
    start = bisect_right(later_runs, (since, "\uffff"))  # the first confirmation ordered after `since`
    for position, (_, ended_at) in enumerate(later_runs[start:], start=1):
        if position >= grace.runs and ended_at >= not_before:
            return ended_at
    return None


def _plus_days(moment: str, days: float) -> str:
    return utc_text(datetime.fromisoformat(moment.replace("Z", "+00:00")) + timedelta(days=days))


@dataclass(frozen=True, slots=True)
class _Kind:
    """One kind of job edge: the statement reading a job's edges of this kind, the names of its
    identifying columns, and the statement that writes their `staleSince`."""

    read: str
    identity: tuple[str, ...]
    write: str


_KINDS = (
    _Kind(lookups.READ_JOB_INPUT_VALIDITY, ("datasetKey", "jobKey"), writes.SET_JOB_INPUT_STALE_SINCE),
    _Kind(lookups.READ_JOB_OUTPUT_VALIDITY, ("jobKey", "datasetKey"), writes.SET_JOB_OUTPUT_STALE_SINCE),
    _Kind(lookups.READ_JOB_DERIVATION_VALIDITY, ("sourceKey", "targetKey", "job"), writes.SET_DERIVATION_STALE_SINCE),
)


def validity_settle(tx: ManagedTransaction, *, job_keys: Sequence[str], grace_for: GraceFor) -> None:
    """Work out `staleSince` again for every edge of the jobs in `job_keys`, from their completed runs
    in the graph, and write the edges whose value changed (three reads, one more for the runs).

    Only the runs that can matter are read: those after an edge's last confirmation or sighting, and, for
    an edge already stale whose sighting has not moved since it was settled (`settledSince`, kept on stale
    edges only), only those up to its `staleSince` (a run ending later cannot retire it sooner). So a long-stale edge of
    a job that runs every minute costs a few runs, not its whole history.
    """
    if not job_keys:
        return
    keys = sorted(set(job_keys))
    found: list[tuple[_Kind, dict[str, Any], str]] = []
    for kind in _KINDS:
        for values in records(tx, kind.read, keys=keys)[0]["rows"]:
            edge = dict(zip(lookups.VALIDITY_COLUMNS, values, strict=True))
            found.append((kind, edge, _since(edge["confirmedOrder"], edge["lastSeen"])))
    # One range of runs per job, covering every edge's: reading a job's runs walks all of them anyway.
    ranges: dict[str, tuple[str, str | None]] = {}
    for _, edge, since in found:
        if not since:
            continue
        until = edge["staleSince"] if since == edge["settledSince"] else None
        if edge["jobKey"] in ranges:
            after, widest = ranges[edge["jobKey"]]
            until = None if until is None or widest is None else max(until, widest)
            since = min(since, after)
        ranges[edge["jobKey"]] = (since, until)
    if not ranges:
        return
    asked = [{"key": key, "after": after, "until": until} for key, (after, until) in sorted(ranges.items())]
    later: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for key, order, at in records(tx, lookups.READ_JOB_COMPLETED_RUNS, rows=asked)[0]["rows"]:
        later[key].append((order, at))
    # A job's latest JobEvent comes with its edges: one more confirmation, as a completed run is.
    declared = {edge["jobKey"]: (edge["declaredOrder"], edge["declaredAt"]) for _, edge, _ in found}
    for key, declaration in declared.items():
        if declaration[0]:
            later[key].append(declaration)
    ordered = {key: sorted(runs) for key, runs in later.items()}
    changed: dict[_Kind, list[dict[str, Any]]] = defaultdict(list)
    for kind, edge, since in found:
        value = stale_since(
            confirmed_order=edge["confirmedOrder"],
            last_seen=edge["lastSeen"],
            later_runs=ordered.get(edge["jobKey"], []),
            grace=grace_for(edge["jobNamespace"]),
            retirements=[
                (edge[order], edge[at])
                for order, at in (("droppedOrder", "droppedAt"), ("deletedOrder", "deletedAt"))
                if edge[order]
            ],
        )
        # Only a stale edge keeps the moment it was settled at (what bounds the runs its next settle reads).
        settled = since if value is not None else None
        if value != edge["staleSince"] or settled != edge["settledSince"]:
            identity = {name: edge[name] for name in kind.identity}
            changed[kind].append({**identity, "staleSince": value, "settledSince": settled})
    for kind, rows in changed.items():
        tx.run(kind.write, rows=rows).consume()
