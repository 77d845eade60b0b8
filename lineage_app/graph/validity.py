"""When a lineage edge holds: the completed runs that confirm a job's edges, and when an edge turned stale.

A job's edges (`INPUT_TO`, `OUTPUTS`, the `DERIVES` edges it wrote and the `PRECEDES` dependencies its runs
declared) each keep the latest completed run that confirmed them (`confirmedOrder`, `confirmedBy`,
`confirmedAt`: a maximum, written with the run's fold) and their sightings (`firstSeen`, `lastSeen`, by any
run). An edge is current until a later completed run of its job leaves it out, after a grace (`StaleGrace`);
it is then stale, with `staleSince` the end of that run. A running run whose job emits complete snapshots confirms (and
retires) by its latest snapshot, and a job's latest JobEvent (static lineage) by what it declares.
`validity_settle` derives `staleSince` from the job's confirmations in the graph, never from the batch,
so it comes out the same whatever order the events arrived in.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from neo4j import ManagedTransaction

from lineage_app.graph import lookups, writes
from lineage_app.graph.driver import records, statement_run
from lineage_app.graph.model import KEY_SEPARATOR, natural_key, run_order_key
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
    _Kind(
        lookups.READ_JOB_DOWNSTREAM_DEPENDENCY_VALIDITY,
        ("sourceKey", "targetKey", "jobKey"),
        writes.SET_JOB_DEPENDENCY_STALE_SINCE,
    ),
    _Kind(
        lookups.READ_JOB_UPSTREAM_DEPENDENCY_VALIDITY,
        ("sourceKey", "targetKey", "jobKey"),
        writes.SET_JOB_DEPENDENCY_STALE_SINCE,
    ),
)


@dataclass(frozen=True, slots=True)
class BatchEdges:
    """What a batch brought its jobs: every confirmation (rows of `jobKey`, `order`, `at` and `completed`,
    true for a completed run's), the jobs its events name (rows of `key`, `nodeId` and `first`, the earliest
    event's time), every job input and output it saw or confirmed (rows of `jobKey` and `datasetKey`), the
    outputs it made current that were not (`revived`, the same rows), and the derivations it saw (rows of
    `targetKey`, `job`, the job's node id, and `confirmedOrder`)."""

    confirmations: Sequence[dict[str, Any]] = ()
    jobs: Sequence[dict[str, Any]] = ()
    edges: Sequence[dict[str, Any]] = ()
    revived: Sequence[dict[str, Any]] = ()
    derivations: Sequence[dict[str, Any]] = ()

    def revived_outputs(self, confirmations: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
        """The outputs (dataset keys) each of the jobs `confirmations` settles by (job key -> its confirmation)
        made current though they were not, and into which the batch saw only derivations that confirmation
        confirmed: no derivation of the job into them can turn stale."""
        revived: dict[str, set[str]] = defaultdict(set)
        for row in self.revived:
            if row["jobKey"] in confirmations:
                revived[row["jobKey"]].add(row["datasetKey"])
        job_keys = {row["nodeId"]: row["key"] for row in self.jobs}
        for row in self.derivations:
            key = job_keys.get(row["job"])
            if key in revived and row["confirmedOrder"] != confirmations[key]["order"]:
                revived[key].discard(natural_key(*row["targetKey"].split(KEY_SEPARATOR)[:2]))
        return {key: sorted(datasets) for key, datasets in revived.items()}


def validity_settle(
    tx: ManagedTransaction,
    *,
    job_keys: Sequence[str],
    batch: BatchEdges,
    grace_for: GraceFor,
    in_full: Collection[str] = (),
) -> None:
    """Bring `staleSince` up to date on the edges of the jobs in `job_keys` (which the batch's write
    statements have just marked current where it saw or confirmed them), and of those in `in_full`
    (around datasets a merge moved edges onto, or a DROP retired).

    Most batches bring a job only news newer than anything it had: at most one completed run, later than
    the job's newest confirmation on record (`latestConfirmation`), sightings after it, no DROP or deleted
    column lineage it has not heard of, and the default grace. Then nothing stale can change, and the
    job's current edges that run left out turn stale at its end: two set-based statements, whatever the
    job's history. Any other job has all its edges worked out again from its confirmations in the graph
    (`_settle_in_full`). Either way the graph comes out the same, whatever order the events arrived in.
    """
    keys = sorted({*job_keys, *in_full})
    if not keys:
        return
    on_record = {
        key: (namespace, latest) for key, namespace, latest in _rows(tx, lookups.READ_JOB_LATEST_CONFIRMATIONS, keys)
    }
    newest = _newest_news(tx, batch=batch, on_record=on_record, in_full=set(in_full), grace_for=grace_for)
    full = [key for key in keys if key not in newest]
    _settle_in_full(tx, keys=full, grace_for=grace_for)
    confirmed = {key: c for key, c in newest.items() if c}
    revived = batch.revived_outputs(confirmed)
    retiring = [
        {"jobKey": key, "order": c["order"], "at": c["at"], "revived": revived.get(key, [])}
        for key, c in sorted(confirmed.items())
    ]
    if retiring:  # which also records each job's newest confirmation, that run's
        for statement in (writes.RETIRE_DERIVATIONS, writes.RETIRE_JOB_EDGES):
            statement_run(tx, statement, rows=retiring, separator=KEY_SEPARATOR).consume()
    _latest_confirmations_write(tx, on_record=on_record, in_full=[k for k in full if k in on_record])


def _rows(tx: ManagedTransaction, statement: str, keys: Sequence[str]) -> list[list[Any]]:
    return records(tx, statement, keys=keys)[0]["rows"] if keys else []


def _newest_news(
    tx: ManagedTransaction,
    *,
    batch: BatchEdges,
    on_record: dict[str, tuple[str, str | None]],
    in_full: set[str],
    grace_for: GraceFor,
) -> dict[str, dict[str, Any] | None]:
    """The jobs to which the batch brings only news newer than their newest confirmation on record,
    each with the completed run it brings (or None: sightings only)."""
    confirmations: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in batch.confirmations:
        confirmations[row["jobKey"]].append(row)
    edges: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in batch.edges:
        edges[row["jobKey"]].append(row)
    earliest = {row["key"]: row["first"] for row in batch.jobs}
    candidates: dict[str, dict[str, Any] | None] = {}
    for key, (namespace, latest) in on_record.items():
        confirmed = confirmations.get(key, [])
        if latest is None or key in in_full or grace_for(namespace) != StaleGrace() or len(confirmed) > 1:
            continue
        if confirmed and not (confirmed[0]["completed"] and confirmed[0]["order"] > latest):
            continue
        if key in earliest and run_order_key(earliest[key], "") <= latest:
            continue
        candidates[key] = confirmed[0] if confirmed else None
    # A DROP or deleted column lineage newer than a job's latest confirmation may postdate what it saw.
    datasets = sorted({row["datasetKey"] for key in candidates for row in edges.get(key, [])})
    retired = {
        key: max(dropped or "", deleted or "")
        for key, dropped, deleted in _rows(tx, lookups.READ_DATASET_RETIREMENTS, datasets)
    }
    return {
        key: confirmation
        for key, confirmation in candidates.items()
        if all(retired.get(row["datasetKey"], "") <= (on_record[key][1] or "") for row in edges.get(key, []))
    }


def _latest_confirmations_write(
    tx: ManagedTransaction,
    *,
    on_record: dict[str, tuple[str, str | None]],
    in_full: Sequence[str],
) -> None:
    """Keep the `latestConfirmation` of each job settled in full exact: its newest confirmation in the graph
    (its runs and JobEvent, the batch's written). A job's newest news records its run's as it retires."""
    latest: dict[str, str | None] = {}
    for key, ran, declared in _rows(tx, lookups.READ_JOB_NEWEST_CONFIRMATIONS, in_full):
        latest[key] = max(ran or "", declared or "") or None
    rows = [
        {"jobKey": key, "latest": order}
        for key, order in sorted(latest.items())
        if key in on_record and order != on_record[key][1]
    ]
    if rows:
        statement_run(tx, writes.SET_JOB_LATEST_CONFIRMATIONS, rows=rows).consume()


def _settle_in_full(tx: ManagedTransaction, *, keys: Sequence[str], grace_for: GraceFor) -> None:
    """Work out `staleSince` again for every edge of the jobs `keys`, from their confirmations in the
    graph, and write the edges whose value changed (three reads, one more for the runs).

    Only the runs that can matter are read: those after an edge's last confirmation or sighting, and, for
    an edge already stale whose sighting has not moved since it was settled (`settledSince`, kept on stale
    edges only), only those up to its `staleSince` (a run ending later cannot retire it sooner). So a long-stale edge of
    a job that runs every minute costs a few runs, not its whole history.
    """
    if not keys:
        return
    found: list[tuple[_Kind, dict[str, Any], str]] = []
    for kind in _KINDS:
        for values in _rows(tx, kind.read, keys):
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
        statement_run(tx, kind.write, rows=rows).consume()
