"""Write a batch's plan to the graph in one write transaction: identity, rows, then derived schema state."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, NamedTuple

from neo4j import ManagedTransaction
from neo4j.exceptions import ConstraintError

from lineage_app.graph import lookups, writes
from lineage_app.graph.alias_registry import AliasRegistryRace, identity_settle
from lineage_app.graph.driver import graph_write, records, statement_run
from lineage_app.graph.facet_store import facets_settle
from lineage_app.graph.identity import Identity, identity_key
from lineage_app.graph.model import Label, natural_key
from lineage_app.graph.projection import (
    GraphWrites,
    field_candidates,
    rows_resolve,
    write_statements,
)
from lineage_app.graph.schema_fields import fields_known
from lineage_app.graph.validity import BatchEdges, GraceFor, no_grace, validity_settle
from lineage_app.graph.withdrawal import ConfirmersOf, confirmations_withdraw, no_confirmers
from lineage_app.observability.metrics import GRAPH_RETRIES, retry_reason

# The canonical identity the alias registry last gave each normalised dataset key it resolved to another name, in this
# process: the guess the projection runs under before the transaction (`graph_writes_apply`). A key not held here
# is guessed to name itself, as most do; only aliased names are kept. Cleared when it would hold more.
_CANONICAL_SEEN_MAX = 100_000
_canonical_seen: dict[str, Identity] = {}

# Two workers that MERGE the same new node at once (a Namespace, a DatasetAlias) both try to create
# it; the engine refuses the later create with a ConstraintError. Run again, the MERGE finds the
# node the other committed, so a few more tries settle it; a lasting violation still raises.
CONSTRAINT_RACE_TRIES = 4


class WriteOutcome(NamedTuple):
    """What a write found new: the keys of the datasets that got a schema version the graph did not hold,
    and (when asked for) the (dataset key, job key) input edges it did not hold: a job's first read."""

    new_versions: frozenset[str]
    new_inputs: frozenset[tuple[str, str]]


def graph_writes_apply(
    plan: GraphWrites,
    *,
    grace_for: GraceFor = no_grace,
    confirmers_of: ConfirmersOf = no_confirmers,
    inputs_new: bool = False,
) -> WriteOutcome:
    """Write `plan` in one transaction, which runs again (from scratch) after a constraint race; what it
    found new (`WriteOutcome`; the input edges only with `inputs_new`, which costs one more read).

    Before the transaction, the projection turns the events into rows (`rows_resolve`, pure: `plan` is never
    changed) under the canonical names this process's last batches resolved to, so that the locks below are not
    held while it runs. In the transaction: the names the batch spells join the alias registry and resolve to
    canonical datasets, merging any node an alias had until now (`alias_registry`); the rows made before are kept
    when they name every dataset as the registry now does, and made again under its answer when not (a name
    aliased since, or a retry); two reads find the schema versions and fields the graph holds already; every
    statement runs with its rows; the datasets' and jobs' facets merge per facet name with the graph's
    (`facets_settle`); the datasets whose versions changed re-derive their current schema; and the jobs whose edges
    the batch saw or confirmed work out which of their edges are stale (`validity_settle`, with the
    grace `grace_for` gives each job's namespace). A run whose node held a completion its new fold does
    not have takes back what that completion confirmed (`confirmations_withdraw`, which reads what else
    confirmed those edges with `confirmers_of`), before the batch's confirmations are written.
    """

    guessed = [rows_resolve(plan, canonical=_canonical_seen)]  # taken once: a later attempt makes its own

    def work(tx: ManagedTransaction) -> WriteOutcome:
        canonical, merged = identity_settle(tx, spellings=plan.aliases.rows(), links=plan.alias_links.rows())
        _canonical_remember(canonical)
        rows = guessed.pop() if guessed else None
        if rows is None or not rows.resolved_as(canonical):
            rows = rows_resolve(plan, canonical=canonical)
        new_inputs = _new_inputs(tx, rows.job_inputs) if inputs_new else frozenset()
        known_versions, current_versions = _known_versions(tx, rows.versions)
        new_versions = frozenset(v["datasetKey"] for v in rows.versions if v["key"] not in known_versions)
        candidates = field_candidates(rows, known_versions=known_versions)
        existing_fields = _existing_field_keys(tx, sorted(candidates))
        new_fields = [row for key, row in candidates.items() if key not in existing_fields]
        withdrawn: list[str] = []
        revived: list[dict[str, Any]] = []
        for statement, statement_rows in write_statements(
            plan, rows, known_versions=known_versions, new_fields=new_fields
        ):
            if statement == writes.MERGE_RUNS:  # answers the completions taken back
                withdrawn = confirmations_withdraw(
                    tx,
                    withdrawn=records(tx, statement, rows=statement_rows),
                    batch_runs=[row["runId"] for row in statement_rows],
                    confirmers_of=confirmers_of,
                )
            elif statement == writes.MERGE_JOB_OUTPUTS:  # answers the outputs it revived
                revived = records(tx, statement, rows=statement_rows)
            else:
                statement_run(tx, statement, rows=statement_rows).consume()
        facets_settle(tx, Label.DATASET, rows.dataset_facets)
        facets_settle(tx, Label.JOB, rows.job_facets)
        unsettled = {v["datasetKey"] for v in rows.versions if v["key"] not in current_versions}
        _settle_current_versions(tx, sorted({*unsettled, *merged}))
        around = sorted({*merged, *rows.retiring_datasets()})  # edges moved onto them, or a DROP retiring them
        neighbours = records(tx, lookups.READ_JOBS_OF_DATASETS, keys=around)[0]["keys"] if around else []
        neighbours = [*neighbours, *withdrawn]
        batch = BatchEdges(
            confirmations=rows.job_confirmations,
            jobs=rows.jobs,
            edges=[*rows.job_inputs, *rows.job_outputs, *rows.input_confirmations, *rows.output_confirmations],
            revived=revived,
            derivations=rows.derivations,
        )
        validity_settle(tx, job_keys=rows.settled_jobs(plan), batch=batch, grace_for=grace_for, in_full=neighbours)
        # Last: every batch naming a namespace writes its node (its seen-times), and holds that lock until it
        # commits; taken here, batches of other jobs and datasets in the namespace run alongside until now. The rows
        # are by name (as every `_Rows`' rows): two batches lock the namespaces they share in the same order.
        if rows.namespaces:
            statement_run(tx, writes.MERGE_NAMESPACES, rows=rows.namespaces).consume()
        return WriteOutcome(new_versions=new_versions, new_inputs=new_inputs)

    for attempt in range(CONSTRAINT_RACE_TRIES):
        try:
            return graph_write(work)
        except (ConstraintError, AliasRegistryRace) as exc:
            if attempt == CONSTRAINT_RACE_TRIES - 1:
                raise
            GRAPH_RETRIES.labels(kind="batch", reason=retry_reason(exc)).inc()
    raise AssertionError("unreachable: the last attempt returns or raises")


def _canonical_remember(canonical: dict[str, Identity]) -> None:
    aliased = {key: chosen for key, chosen in canonical.items() if identity_key(*chosen) != key}
    for key in canonical.keys() - aliased.keys():
        _canonical_seen.pop(key, None)  # a name that lost its alias names itself again
    if len(_canonical_seen) + len(aliased) > _CANONICAL_SEEN_MAX:
        _canonical_seen.clear()
    _canonical_seen.update(aliased)


def _new_inputs(tx: ManagedTransaction, job_inputs: list[dict[str, Any]]) -> frozenset[tuple[str, str]]:
    """Those of the batch's input edges the graph does not hold yet (read before they are merged)."""
    wanted = {(row["datasetKey"], row["jobKey"]) for row in job_inputs}
    if not wanted:
        return frozenset()
    rows = [{"datasetKey": dataset, "jobKey": job} for dataset, job in sorted(wanted)]
    known = {(r["datasetKey"], r["jobKey"]) for r in records(tx, lookups.READ_KNOWN_JOB_INPUTS, rows=rows)}
    return frozenset(wanted - known)


def _known_versions(tx: ManagedTransaction, versions: list[dict[str, Any]]) -> tuple[set[str], set[str]]:
    """Which of `versions` (schema version rows) the graph holds already, and those of them that are
    their dataset's current version: seeing a current version again changes nothing derived."""
    rows = [{"key": v["key"], "datasetKey": v["datasetKey"]} for v in versions]
    if not rows:
        return set(), set()
    found = records(tx, lookups.READ_KNOWN_VERSIONS, rows=rows)
    return (set(found[0]["keys"]), set(found[0]["current"])) if found else (set(), set())


def _existing_field_keys(tx: ManagedTransaction, keys: list[str]) -> set[str]:
    """Which of `keys` name Field nodes in the graph: knowing them spares merging (and locking) a
    field again on every later sighting of its schema or column mapping."""
    if not keys:
        return set()
    found = records(tx, lookups.READ_FIELD_KEYS, keys=keys)
    return set(found[0]["keys"]) if found else set()


def _settle_current_versions(tx: ManagedTransaction, dataset_keys: list[str]) -> None:
    """A dataset's current schema is the version seen last; its fields take their types from it, or
    where it left a type empty, from the newest version that knew it (`schema_fields.fields_known`).

    Derived from the whole set of versions in the graph (not from the batch), so it comes
    out the same whichever order the versions arrived in.
    """
    if not dataset_keys:
        return
    ordered: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in records(tx, lookups.READ_DATASET_VERSION_ORDER, keys=dataset_keys):
        ordered[row["datasetKey"]].append(row)
    changed = [dataset_key for dataset_key, found in ordered.items() if not _is_current(found)]
    if not changed:
        return
    versions: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in records(tx, lookups.READ_DATASET_VERSIONS, keys=changed):
        versions[row["datasetKey"]].append(row)
    dataset_rows, field_rows = [], []
    for dataset_key, found in versions.items():
        if _is_current(found):
            continue
        by_sighting = sorted(found, key=lambda v: v["lastKey"])
        current = by_sighting[-1]
        current_names = set(current["fieldNames"])
        dataset_rows.append(
            {
                "datasetKey": dataset_key,
                "version": current["version"],
                "versionCount": len(found),
                "fieldCount": len(current_names),
            }
        )
        # A type a version left empty is unknown: the field keeps the newest type a version knew.
        types = fields_known(zip(v["fieldNames"], v["fieldTypes"], strict=True) for v in by_sighting)
        namespace, name = current["namespace"], current["name"]
        for field_name, field_type in types.items():
            field_rows.append(
                {
                    "key": natural_key(namespace, name, field_name),
                    "type": field_type,
                    "current": field_name in current_names,
                }
            )
    if dataset_rows:
        statement_run(tx, writes.SET_DATASET_CURRENT_VERSIONS, rows=dataset_rows).consume()
        statement_run(tx, writes.SET_FIELD_TYPES, rows=field_rows).consume()


def _is_current(versions: list[dict[str, Any]]) -> bool:
    """Whether a dataset already holds its newest version as current (and its version count): then
    nothing derived changes, and its field lists need not even be read."""
    newest = max(versions, key=lambda v: v["lastKey"])
    return (newest["storedVersion"], newest["storedCount"]) == (newest["version"], len(versions))


def graph_wipe(*, chunk: int = 5000) -> None:
    """Delete every node and relationship, a chunk per transaction (before a replay)."""
    while graph_write(lambda tx: records(tx, writes.DELETE_SOME, limit=chunk)[0]["deleted"]):
        pass
