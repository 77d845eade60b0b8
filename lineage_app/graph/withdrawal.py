"""Confirmations a run takes back: its job's edges fall back on the job's other runs when the completion that
confirmed them turns out not to be the run's (a FAIL timed before its COMPLETE, arriving after it), or when a
streaming run's newer complete snapshot supersedes the one that confirmed them (an earlier snapshot arriving
first confirmed what a later one leaves out).

Edges keep their latest confirmation as a maximum (`graph.validity`), which a later fold cannot lower. So
when a run's node takes a fold whose completion differs from the one it held (`writes.MERGE_RUNS` answers
those), the edges that completion confirmed lose it, and take again the latest confirmation among the
job's other confirming runs and JobEvents that named them, read from the event log (`ConfirmersOf`), before
the batch's own confirmations (the run's new one among them) are written. The job then settles its edges in
full. The graph comes out as if the run's events had arrived in any other order.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from neo4j import ManagedTransaction

from lineage_app.graph import lookups, writes
from lineage_app.graph.alias_registry import identity_settle
from lineage_app.graph.driver import records, statement_run
from lineage_app.graph.events import EventRecord
from lineage_app.graph.projection import graph_writes_for, rows_resolve
from lineage_app.graph.run_state import RunFold

# (job keys, run ids) -> the applied JobEvents of those jobs, and each of those runs folded over its applied
# events: what confirmed their edges besides, read from the event log by the ingest layer.
ConfirmersOf = Callable[[Sequence[str], Sequence[str]], tuple[list[EventRecord], list[RunFold]]]


def no_confirmers(_job_keys: Sequence[str], _run_ids: Sequence[str]) -> tuple[list[EventRecord], list[RunFold]]:
    """No event log to read: a withdrawn confirmation falls back on nothing."""
    return [], []


# Each kind of job edge: the statement that takes a run's confirmation back, the one that confirms again,
# the `EventRows` lists holding confirmations (with the sightings of the JobEvents read, or alone), and the
# columns that identify an edge.
_KINDS = (
    (
        writes.WITHDRAW_JOB_INPUTS,
        writes.CONFIRM_JOB_INPUTS,
        ("job_inputs", "input_confirmations"),
        ("datasetKey", "jobKey"),
    ),
    (
        writes.WITHDRAW_JOB_OUTPUTS,
        writes.CONFIRM_JOB_OUTPUTS,
        ("job_outputs", "output_confirmations"),
        ("jobKey", "datasetKey"),
    ),
    (
        writes.WITHDRAW_DERIVATIONS,
        writes.CONFIRM_DERIVATIONS,
        ("derivations", "derivation_confirmations"),
        ("sourceKey", "targetKey", "job"),
    ),
    (
        writes.WITHDRAW_JOB_DEPENDENCIES,
        writes.CONFIRM_JOB_DEPENDENCIES,
        ("job_dependencies", "dependency_confirmations"),
        ("sourceKey", "targetKey", "jobKey"),
    ),
)


def confirmations_withdraw(
    tx: ManagedTransaction,
    *,
    withdrawn: Sequence[dict[str, Any]],
    batch_runs: Collection[str],
    confirmers_of: ConfirmersOf,
) -> list[str]:
    """Take back the confirmations of the completions `withdrawn` (rows of `jobKey`, `runId` and the `order`
    the run's node held) and confirm those edges again from their jobs' other confirming runs (but those
    in `batch_runs`, whose confirmations the batch writes itself); the keys of the jobs concerned."""
    if not withdrawn:
        return []
    cleared = [records(tx, withdraw, rows=list(withdrawn)) for withdraw, _, _, _ in _KINDS]
    since: dict[str, str] = {}
    for rows in cleared:
        for row in rows:
            since[row["ofJob"]] = min(row["firstSeen"], since.get(row["ofJob"], row["firstSeen"]))
    if since:
        _confirm_again(tx, cleared=cleared, since=since, skip={*batch_runs}, confirmers_of=confirmers_of)
    return sorted({row["jobKey"] for row in withdrawn})


def _confirm_again(
    tx: ManagedTransaction,
    *,
    cleared: list[list[dict[str, Any]]],
    since: dict[str, str],
    skip: set[str],
    confirmers_of: ConfirmersOf,
) -> None:
    """Confirm the `cleared` edges again with the latest confirmation naming them among their jobs' JobEvents
    and other confirming runs: only runs whose last event is no earlier than the edge's first sighting can
    have named it."""
    asked = [{"jobKey": key, "since": moment} for key, moment in sorted(since.items())]
    run_ids = records(tx, lookups.READ_JOB_CONFIRMING_RUNS_SINCE, rows=asked)[0]["runIds"]
    declarations, folds = confirmers_of(sorted(since), sorted(set(run_ids) - skip))
    plan = graph_writes_for(declarations, folds)
    canonical, _ = identity_settle(tx, spellings=plan.aliases.rows(), links=plan.alias_links.rows())
    found = rows_resolve(plan, canonical=canonical)
    for (_, confirm, lists, identity), rows in zip(_KINDS, cleared, strict=True):
        wanted = {tuple(row[name] for name in identity) for row in rows}
        again = [
            row
            for name in lists
            for row in getattr(found, name)
            if row["confirmedOrder"] is not None and tuple(row[column] for column in identity) in wanted
        ]
        if again:
            statement_run(tx, confirm, rows=again).consume()
