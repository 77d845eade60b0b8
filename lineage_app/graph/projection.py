"""Project OpenLineage events onto graph rows: pure Python (no driver, no reads), one row per entity per batch."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Set
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

from lineage_app.graph import writes as statements
from lineage_app.graph.events import EventRecord
from lineage_app.graph.facets import Sightings, is_deleted, sightings_merge, sightings_of, tag_texts
from lineage_app.graph.identity import Identity, identity_key, identity_normalise, linked_identifiers
from lineage_app.graph.model import (
    NodeType,
    RunState,
    json_property,
    natural_key,
    owner_kind,
    run_order_key,
    utc_key,
)
from lineage_app.graph.node_ids import node_id
from lineage_app.graph.quality import checks_status, dataset_metrics, dataset_version, event_checks
from lineage_app.graph.run_state import ParentRun, RunFold
from lineage_app.graph.subsets import subset_text

# Facets kept as graph structure of their own, not in a node's facet blob.
STRUCTURAL_DATASET_FACETS = frozenset({"schema", "columnLineage"})

# A dataset name as an event spells it -> the (namespace, name) of the dataset it means.
Resolve = Callable[[str, str], tuple[str, str]]


@dataclass(frozen=True, slots=True)
class _Stamped:
    """An event with its time and order key worked out once: every row the event adds carries both."""

    payload: dict[str, Any]
    content_hash: str
    time: str
    order_key: str


def _stamped(event: EventRecord) -> _Stamped:
    time = event.time
    return _Stamped(
        payload=event.payload,
        content_hash=event.content_hash,
        time=time,
        order_key=utc_key(time, event.content_hash),
    )


class _Rows:
    """The rows of one statement, merged per entity across a batch.

    first / last widen to cover every event; `facts` follow the newest event (by order key);
    `earliest` facts follow the oldest; `every` facts (booleans) hold only if they hold for every event.
    This is the same rule the Cypher applies, so merging in Python first changes nothing but the number
    of round trips.
    """

    def __init__(self) -> None:
        self._rows: dict[tuple[Any, ...], dict[str, Any]] = {}

    def add(
        self,
        identity: tuple[Any, ...],
        event: _Stamped,
        *,
        fixed: dict[str, Any],
        facts: dict[str, Any] | None = None,
        earliest: dict[str, Any] | None = None,
        every: dict[str, bool] | None = None,
    ) -> None:
        time, order = event.time, event.order_key
        row = self._rows.get(identity)
        if row is None:
            self._rows[identity] = {
                **fixed,
                **(facts or {}),
                **(earliest or {}),
                **(every or {}),
                "first": time,
                "last": time,
                "order": order,
                "firstOrder": order,
            }
            return
        for name, value in (every or {}).items():
            row[name] = row[name] and value
        row["first"] = min(row["first"], time)
        row["last"] = max(row["last"], time)
        if order >= row["order"]:
            row.update(facts or {})
            row["order"] = order
        if order < row["firstOrder"]:
            row.update(earliest or {})
            row["firstOrder"] = order

    def has(self, identity: tuple[Any, ...]) -> bool:
        return identity in self._rows

    def rows(self) -> list[dict[str, Any]]:
        """The rows in the order of their identities: two batches writing the same entities lock them in the
        same order."""
        return [row for _, row in sorted(self._rows.items(), key=_identity_order)]

    def confirmed(
        self,
        confirmations: Mapping[tuple[Any, ...], dict[str, Any]],
        identity: Callable[[dict[str, Any]], tuple[Any, ...]],
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The rows, each with the confirmation of its edge among `confirmations` (by `identity`), or
        none; and the confirmations of edges no row writes."""
        rows = [{**_UNCONFIRMED, **row, **confirmations.get(identity(row), {})} for row in self.rows()]
        written = {identity(row) for row in rows}
        unwritten = sorted((item for item in confirmations.items() if item[0] not in written), key=_identity_order)
        return rows, [row for _, row in unwritten]


def _identity_order(item: tuple[tuple[Any, ...], dict[str, Any]]) -> tuple[str, ...]:
    """An identity as text, for ordering identities that hold an unset part (None) beside text."""
    return tuple("" if part is None else str(part) for part in item[0])


class _FacetRows:
    """Each node's facet sightings in a batch, by node key: the newest per facet name (`graph.facets`),
    merged with the graph's inside the write transaction (`graph.facet_store`)."""

    def __init__(self) -> None:
        self._nodes: dict[str, Sightings] = {}

    def add(self, key: str, sightings: Sightings) -> None:
        held = self._nodes.get(key)
        if held is None:
            self._nodes[key] = sightings
        else:
            sightings_merge(held, sightings)

    def rows(self) -> dict[str, Sightings]:
        return self._nodes


# A job edge's row when the batch sees it but no confirming run names it.
_UNCONFIRMED = {"confirmedOrder": None, "confirmedBy": None, "confirmedAt": None}


@dataclass
class GraphWrites:
    """What a batch of events writes, with dataset names as the events spell them: the events, every
    name they spell and the symlinks they declare (`aliases`, `alias_links`, rows of the alias
    registry), and the run nodes of the already-folded runs.

    Built here (`graph_writes_for`, `writes_add_runs`) and handed to `graph.writer`, which never
    changes it: names resolve to canonical datasets only inside the write transaction (the alias
    registry is read there), and `rows_resolve` then turns the events into rows under those names.
    """

    events: list[EventRecord] = field(default_factory=list)
    aliases: _Rows = field(default_factory=_Rows)
    alias_links: _Rows = field(default_factory=_Rows)
    runs: list[dict[str, Any]] = field(default_factory=list)
    run_parents: list[dict[str, Any]] = field(default_factory=list)
    run_roots: list[dict[str, Any]] = field(default_factory=list)
    run_tags: list[dict[str, Any]] = field(default_factory=list)
    # The folds among `runs` that confirm their job's edges (`RunFold.confirmation`: completed runs, and
    # runs emitting complete snapshots).
    confirming: list[RunFold] = field(default_factory=list)


@dataclass
class _EventRowsBuilder:
    """The rows of a batch's events, by statement, while `rows_resolve` adds them."""

    namespaces: _Rows = field(default_factory=_Rows)
    datasets: _Rows = field(default_factory=_Rows)
    dataset_facets: _FacetRows = field(default_factory=_FacetRows)
    jobs: _Rows = field(default_factory=_Rows)
    job_facets: _FacetRows = field(default_factory=_FacetRows)
    run_reads: _Rows = field(default_factory=_Rows)
    run_writes: _Rows = field(default_factory=_Rows)
    run_read_statistics: _Rows = field(default_factory=_Rows)
    run_write_statistics: _Rows = field(default_factory=_Rows)
    run_read_subsets: _Rows = field(default_factory=_Rows)
    run_write_subsets: _Rows = field(default_factory=_Rows)
    job_output_subsets: _Rows = field(default_factory=_Rows)
    run_checks: _Rows = field(default_factory=_Rows)
    run_metrics: _Rows = field(default_factory=_Rows)
    job_inputs: _Rows = field(default_factory=_Rows)
    job_outputs: _Rows = field(default_factory=_Rows)
    job_dependencies: _Rows = field(default_factory=_Rows)
    versions: _Rows = field(default_factory=_Rows)
    fields: _Rows = field(default_factory=_Rows)
    derivations: _Rows = field(default_factory=_Rows)
    dataset_owners: _Rows = field(default_factory=_Rows)
    job_owners: _Rows = field(default_factory=_Rows)
    dataset_tags: _Rows = field(default_factory=_Rows)
    job_tags: _Rows = field(default_factory=_Rows)
    declarations: _Rows = field(default_factory=_Rows)
    drops: _Rows = field(default_factory=_Rows)
    lineage_deletions: _Rows = field(default_factory=_Rows)


@dataclass(frozen=True, slots=True, kw_only=True)
class EventRows:
    """The rows of a batch's events with every dataset name resolved to its canonical dataset, by statement."""

    namespaces: list[dict[str, Any]]
    datasets: list[dict[str, Any]]
    # Each dataset's and job's facet sightings, by key (`graph.facet_store` merges them with the graph's).
    dataset_facets: dict[str, Sightings]
    jobs: list[dict[str, Any]]
    job_facets: dict[str, Sightings]
    run_reads: list[dict[str, Any]]
    run_writes: list[dict[str, Any]]
    run_read_statistics: list[dict[str, Any]]
    run_write_statistics: list[dict[str, Any]]
    # The part of a dataset each run read or wrote, when its `subset` facet said (`graph.subsets`).
    run_read_subsets: list[dict[str, Any]]
    run_write_subsets: list[dict[str, Any]]
    # Each job output's newest write of part of the dataset.
    job_output_subsets: list[dict[str, Any]]
    # Each run's data-quality checks and metrics of a dataset (`graph.quality`).
    run_checks: list[dict[str, Any]]
    run_metrics: list[dict[str, Any]]
    job_inputs: list[dict[str, Any]]
    job_outputs: list[dict[str, Any]]
    # Each job dependency a run declared (`jobDependencies`): upstream job, downstream job, declaring job.
    job_dependencies: list[dict[str, Any]]
    versions: list[dict[str, Any]]
    fields: list[dict[str, Any]]
    derivations: list[dict[str, Any]]
    dataset_owners: list[dict[str, Any]]
    job_owners: list[dict[str, Any]]
    dataset_tags: list[dict[str, Any]]
    job_tags: list[dict[str, Any]]
    # Each job's latest JobEvent in the batch (static lineage), which replaces its declared inputs and outputs.
    declarations: list[dict[str, Any]]
    # Each dataset's latest DROP in the batch (`lifecycleStateChange`), which retires the edges seen before it.
    drops: list[dict[str, Any]]
    # Each dataset's latest deleted `columnLineage` facet, which retires the derivations into it seen before.
    lineage_deletions: list[dict[str, Any]]
    # The job edges the batch's completed runs confirm, each with the latest such run.
    input_confirmations: list[dict[str, Any]]
    output_confirmations: list[dict[str, Any]]
    derivation_confirmations: list[dict[str, Any]]
    dependency_confirmations: list[dict[str, Any]]
    # Every confirmation the batch brings, by job: its order key, time, and whether a completed run's.
    job_confirmations: list[dict[str, Any]]
    # Each normalised dataset key the batch's names reached, with its normalised identity and the identity the
    # rows name it by: what `resolved_as` compares with the alias registry's answer.
    resolutions: dict[str, tuple[Identity, Identity]]

    def resolved_as(self, canonical: Mapping[str, Identity]) -> bool:
        """Whether these rows name every dataset as `rows_resolve(..., canonical=canonical)` would: rows made
        before the alias registry answered (under a guess) are then the rows it would make."""
        return all(canonical.get(key, normal) == chosen for key, (normal, chosen) in self.resolutions.items())

    def retiring_datasets(self) -> list[str]:
        """The datasets the batch drops or deletes the column lineage of: the jobs around them settle their
        edges' validity too."""
        return sorted({row["datasetKey"] for row in (*self.drops, *self.lineage_deletions)})

    def settled_jobs(self, writes: GraphWrites) -> list[str]:
        """The jobs whose edges' validity the batch may change: every job its events name, and the
        job of every run it completes (`graph.validity.validity_settle`)."""
        named = {row["key"] for row in self.jobs}
        return sorted(named | {natural_key(fold.job_namespace, fold.job_name) for fold in writes.confirming})


def rows_resolve(writes: GraphWrites, *, canonical: Mapping[str, Identity]) -> EventRows:
    """The rows of `writes`' events, each dataset name resolved through `canonical` (normalised key ->
    canonical identity, from the alias registry; a name missing from it is its own normalised identity)."""
    resolved: dict[tuple[str, str], Identity] = {}  # a batch spells the same names many times
    resolutions: dict[str, tuple[Identity, Identity]] = {}

    def resolve(namespace: str, name: str) -> Identity:
        found = resolved.get((namespace, name))
        if found is None:
            normal = identity_normalise(namespace, name)
            key = identity_key(*normal)
            held = resolutions.get(key)  # each normalised key is looked up once, so `resolutions` says what was used
            found = resolved[namespace, name] = held[1] if held is not None else canonical.get(key, normal)
            resolutions[key] = (normal, found)
        return found

    built = _EventRowsBuilder()
    for event in writes.events:
        _project_event(built, _stamped(event), resolve)
    confirming = list(_confirming(writes))
    inputs, outputs, derivations, dependencies = _confirmations(confirming, resolve)
    # An edge the batch both sees and confirms is written once, confirmation and all.
    job_inputs, input_confirmations = built.job_inputs.confirmed(inputs, _job_input_identity)
    job_outputs, output_confirmations = built.job_outputs.confirmed(outputs, _job_output_identity)
    derived, derivation_confirmations = built.derivations.confirmed(derivations, _derivation_identity)
    declared, dependency_confirmations = built.job_dependencies.confirmed(dependencies, _dependency_identity)
    return EventRows(
        **{item.name: getattr(built, item.name).rows() for item in fields(built)}
        | {"job_inputs": job_inputs, "job_outputs": job_outputs, "derivations": derived, "job_dependencies": declared},
        input_confirmations=input_confirmations,
        output_confirmations=output_confirmations,
        derivation_confirmations=derivation_confirmations,
        dependency_confirmations=dependency_confirmations,
        job_confirmations=[
            {"jobKey": c.job_key, "order": c.order, "at": c.time, "completed": c.completed} for c in confirming
        ],
        resolutions=resolutions,
    )


class _Confirming(NamedTuple):
    """One set of job edges confirmed together: by a confirming run (its id) or a JobEvent (None)."""

    order: str
    time: str
    run_id: str | None
    job_key: str
    # A completed run's confirmation, not a running one's snapshot or a JobEvent's declaration.
    completed: bool
    events: Iterable[EventRecord]


def _confirming(writes: GraphWrites) -> Iterator[_Confirming]:
    """Every confirmation in `writes`: each confirming run's (`RunFold.confirmation`), and each JobEvent's
    (static lineage: a job's declared inputs and outputs, which the next declaration replaces)."""
    for fold in writes.confirming:
        if fold.confirmation is not None:
            order, time, events = fold.confirmation
            job_key = natural_key(fold.job_namespace, fold.job_name)
            yield _Confirming(order, time, fold.run_id, job_key, order == fold.completed_order, events)
    for event in writes.events:
        job = event.payload.get("job")
        if "run" not in event.payload and job:
            order = declaration_order(event.time, event.content_hash)
            yield _Confirming(order, event.time, None, natural_key(job["namespace"], job["name"]), False, (event,))


def declaration_order(time: str, content_hash: str) -> str:
    """Where a JobEvent stands among its job's confirmations (or a DROP among a dataset's): its time,
    then its content hash."""
    return run_order_key(time, content_hash)


def _job_input_identity(row: Mapping[str, Any]) -> tuple[str, ...]:
    return row["datasetKey"], row["jobKey"]


def _job_output_identity(row: Mapping[str, Any]) -> tuple[str, ...]:
    return row["jobKey"], row["datasetKey"]


def _derivation_identity(row: Mapping[str, Any]) -> tuple[str, ...]:
    return row["sourceKey"], row["targetKey"], row["job"]


def _dependency_identity(row: Mapping[str, Any]) -> tuple[str, ...]:
    return row["sourceKey"], row["targetKey"], row["jobKey"]


_Confirmations = dict[tuple[str, ...], dict[str, Any]]


def _confirmations(
    confirming: Iterable[_Confirming], resolve: Resolve
) -> tuple[_Confirmations, _Confirmations, _Confirmations, _Confirmations]:
    """The job inputs, outputs, derivations and declared dependencies each confirmation's events name (all
    of a completed run's events, not only the batch's), by edge, each kept with the latest confirmation
    naming it."""
    found: tuple[_Confirmations, _Confirmations, _Confirmations, _Confirmations] = ({}, {}, {}, {})
    names = (
        ("datasetKey", "jobKey"),
        ("jobKey", "datasetKey"),
        ("sourceKey", "targetKey", "job"),
        ("sourceKey", "targetKey", "jobKey"),
    )
    for order, time, run_id, _, _, events in confirming:
        stamp = {"confirmedOrder": order, "confirmedBy": run_id, "confirmedAt": time}
        for kept, keys, identity in zip(found, _named_edges(events, resolve), names, strict=True):
            for key in keys:
                if key not in kept or order > kept[key]["confirmedOrder"]:
                    kept[key] = {**dict(zip(identity, key, strict=True)), **stamp}
    return found


def _named_edges(events: Iterable[EventRecord], resolve: Resolve) -> tuple[set[tuple[str, ...]], ...]:
    """The job edges `events` name, by key: (dataset, job) inputs, (job, dataset) outputs, (source
    field, target field, job id) derivations, and (upstream job, downstream job, declaring job) declared
    dependencies; only what confirming them needs, not the events' rows."""
    inputs: set[tuple[str, ...]] = set()
    outputs: set[tuple[str, ...]] = set()
    derivations: set[tuple[str, ...]] = set()
    dependencies: set[tuple[str, ...]] = set()
    for event in events:
        job = event.payload.get("job")
        if not job:
            continue
        job_key, job_id = (
            natural_key(job["namespace"], job["name"]),
            node_id(NodeType.JOB, job["namespace"], job["name"]),
        )
        named: set[str] = set()
        for dataset in event.payload.get("inputs") or []:
            dataset_key = natural_key(*resolve(dataset["namespace"], dataset["name"]))
            named.add(dataset_key)
            inputs.add((dataset_key, job_key))
        for dataset in event.payload.get("outputs") or []:
            namespace, name = resolve(dataset["namespace"], dataset["name"])
            named.add(natural_key(namespace, name))
            outputs.add((job_key, natural_key(namespace, name)))
            for output_field, source in column_sources(dataset):
                source_key = natural_key(*resolve(source["namespace"], source["name"]), source["field"])
                derivations.add((source_key, natural_key(namespace, name, output_field), job_id))
        inputs.update((dataset_key, job_key) for dataset_key in inferred_inputs(event.payload, resolve, named=named))
        if "run" in event.payload:
            dependencies.update((up, down, job_key) for up, down, _ in declared_dependencies(event.payload, job_key))
    return inputs, outputs, derivations, dependencies


def field_candidates(rows: EventRows, *, known_versions: set[str]) -> dict[str, dict[str, Any]]:
    """Every Field row the batch may create, by key: those named by column lineage, and those of
    each schema version not in `known_versions` (a version's fields are created once). A field
    of a known version exists already, so it is no candidate."""
    candidates = {row["key"]: row for row in rows.fields}
    for version in rows.versions:
        known = version["key"] in known_versions
        for name in version["fieldNames"]:
            key = natural_key(version["namespace"], version["name"], name)
            if known:
                candidates.pop(key, None)
            elif key not in candidates:
                candidates[key] = {
                    **_field_row(version["namespace"], version["name"], name),
                    "datasetKey": version["datasetKey"],
                }
    return candidates


def write_statements(
    writes: GraphWrites, rows: EventRows, *, known_versions: set[str], new_fields: list[dict[str, Any]]
) -> list[tuple[str, list[dict[str, Any]]]]:
    """Each statement with its rows, in the order they must run, given the schema versions the graph
    holds already and the Field rows it does not (`field_candidates` less the ones a read found).
    The namespaces are not among them: `graph.writer` writes them last (`EventRows.namespaces`, by name)."""
    versions = rows.versions
    runs = sorted(writes.runs, key=lambda run: run["runId"])  # in key order, as every `_Rows`' rows
    ordered = (
        (statements.MERGE_DATASETS, rows.datasets),
        (statements.MERGE_JOBS, rows.jobs),
        (statements.MERGE_RUNS, runs),
        (statements.MERGE_RUN_PARENTS, writes.run_parents),
        (statements.MERGE_RUN_ROOTS, writes.run_roots),
        (statements.MERGE_RUN_READS, rows.run_reads),
        (statements.MERGE_RUN_WRITES, rows.run_writes),
        (statements.SET_DATASET_LATEST_RUNS, _latest_run_rows(runs)),
        (statements.SET_RUN_READ_STATISTICS, rows.run_read_statistics),
        (statements.SET_RUN_WRITE_STATISTICS, rows.run_write_statistics),
        (statements.SET_RUN_READ_SUBSETS, rows.run_read_subsets),
        (statements.SET_RUN_WRITE_SUBSETS, rows.run_write_subsets),
        (statements.MERGE_RUN_CHECKS, rows.run_checks),
        (statements.MERGE_RUN_METRICS, rows.run_metrics),
        (statements.MERGE_JOB_INPUTS, rows.job_inputs),
        (statements.MERGE_JOB_OUTPUTS, rows.job_outputs),
        (statements.SET_JOB_OUTPUT_SUBSETS, rows.job_output_subsets),
        (statements.MERGE_JOB_DEPENDENCIES, rows.job_dependencies),
        (statements.MERGE_DATASET_VERSIONS, [v for v in versions if v["key"] not in known_versions]),
        (statements.SET_VERSION_SIGHTINGS, [_sighting(v) for v in versions if v["key"] in known_versions]),
        (statements.MERGE_FIELDS, sorted(new_fields, key=lambda row: row["key"])),
        (statements.MERGE_FIELD_DERIVATIONS, rows.derivations),
        (statements.CONFIRM_JOB_INPUTS, rows.input_confirmations),
        (statements.CONFIRM_JOB_OUTPUTS, rows.output_confirmations),
        (statements.CONFIRM_DERIVATIONS, rows.derivation_confirmations),
        (statements.CONFIRM_JOB_DEPENDENCIES, rows.dependency_confirmations),
        (statements.MERGE_DATASET_OWNERS, rows.dataset_owners),
        (statements.MERGE_JOB_OWNERS, rows.job_owners),
        (statements.MERGE_DATASET_TAGS, rows.dataset_tags),
        (statements.MERGE_JOB_TAGS, rows.job_tags),
        (statements.MERGE_RUN_TAGS, writes.run_tags),
        (statements.SET_JOB_DECLARATIONS, rows.declarations),
        (statements.SET_DATASET_DROPS, rows.drops),
        (statements.SET_DATASET_LINEAGE_DELETIONS, rows.lineage_deletions),
    )
    return [(statement, statement_rows) for statement, statement_rows in ordered if statement_rows]


# What `SET_VERSION_SIGHTINGS` reads of a version's row: a known version's names and types are in the graph.
_SIGHTING_COLUMNS = ("key", "fieldDescriptions", "createdByRun", "first", "last", "order", "firstOrder")


def _sighting(version: dict[str, Any]) -> dict[str, Any]:
    return {name: version[name] for name in _SIGHTING_COLUMNS}


def graph_writes_for(events: Iterable[EventRecord], folds: Iterable[RunFold]) -> GraphWrites:
    """The writes of `events` (turned into rows by `rows_resolve` once their dataset names resolve),
    plus the run nodes for the already-folded `folds`."""
    writes = GraphWrites(events=list(events))
    for event in writes.events:
        _add_spellings(writes, _stamped(event))
    writes_add_runs(writes, folds, spelled={event.content_hash for event in writes.events})
    return writes


def _add_spellings(writes: GraphWrites, event: _Stamped) -> None:
    """Every dataset name `event` spells, and the symlinks it declares, for the alias registry."""
    payload = event.payload
    job = payload.get("job")
    source = {
        "sourceEvent": event.content_hash,
        "sourceProducer": payload.get("producer"),
        "sourceJob": node_id(NodeType.JOB, job["namespace"], job["name"]) if job else None,
    }

    def spelling(namespace: str, name: str, kind: str, type_: str | None = None) -> str:
        key = natural_key(namespace, name)
        normal = identity_normalise(namespace, name)
        writes.aliases.add(
            (key,),
            event,
            fixed={
                "key": key,
                "namespace": namespace,
                "name": name,
                "normalKey": identity_key(*normal),
                "normalNamespace": normal[0],
                "normalName": normal[1],
            },
            earliest={**source, "sourceKind": kind, "sourceType": type_},
        )
        return key

    named = [payload["dataset"]] if "dataset" in payload else []
    named += [*(payload.get("inputs") or []), *(payload.get("outputs") or [])]
    for dataset in named:
        key = spelling(dataset["namespace"], dataset["name"], "dataset")
        for link in linked_identifiers(dataset):
            other = spelling(link.namespace, link.name, link.kind, link.type)
            if other != key:
                writes.alias_links.add((key, other), event, fixed={"fromKey": key, "toKey": other}, earliest=source)
        lineage = (dataset.get("facets") or {}).get("columnLineage") or {}
        for mapping in (lineage.get("fields") or {}).values():
            for item in mapping.get("inputFields") or []:
                spelling(item["namespace"], item["name"], "dataset")
        for item in lineage.get("dataset") or []:
            spelling(item["namespace"], item["name"], "dataset")


def writes_add_runs(writes: GraphWrites, folds: Iterable[RunFold], *, spelled: Set[str] = frozenset()) -> None:
    """The run nodes of `folds`; a confirming run's events join the alias registry's spellings (the names
    its confirmations spell resolve like the batch's), but for those in `spelled` (content hashes) already."""
    for fold in folds:
        if fold.confirmation is not None:
            writes.confirming.append(fold)
            for event in fold.confirmation[2]:
                if event.content_hash not in spelled:
                    _add_spellings(writes, _stamped(event))
        writes.runs.append(
            {
                "runId": fold.run_id,
                "nodeId": node_id(NodeType.RUN, fold.run_id),
                "jobKey": natural_key(fold.job_namespace, fold.job_name),
                "props": fold.node_properties(),
                **_latest_run_facts(fold.run_id, fold.state, fold.last_event_time),
            }
        )
        writes.run_tags.extend({"targetKey": fold.run_id, "tag": tag} for tag in tag_texts(fold.facets))
        if fold.parent is not None:
            writes.run_parents.append({"runId": fold.run_id, **_referenced_run(fold.parent)})
        if fold.root is not None and fold.root != fold.parent:
            writes.run_roots.append(_referenced_run(fold.root))


def _referenced_run(run: ParentRun) -> dict[str, str | None]:
    """The row of a run named by another run (its parent or root) for `_MERGE_REFERENCED_RUN`."""
    return {
        "refRunId": run.run_id,
        "refNodeId": node_id(NodeType.RUN, run.run_id),
        "refJobKey": natural_key(run.job_namespace, run.job_name),
        "refJobNodeId": node_id(NodeType.JOB, run.job_namespace, run.job_name),
        "refJobNamespace": run.job_namespace,
        "refJobName": run.job_name,
        # A run known only by reference has no events: it is the job's latest run
        # only while the job has no run with events (an empty time sorts first).
        **_latest_run_facts(run.run_id, RunState.NEW.value, ""),
    }


# What a run offers its job and the datasets it wrote as their latest run (`_latest_run_facts`).
LATEST_RUN_FACTS = ("latestRunId", "latestRunState", "latestRunTime", "runOrder")


def _latest_run_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The runs as SET_DATASET_LATEST_RUNS reads them: each run's id and latest-run facts, without the run node's
    properties (its facets among them, which can be large), which MERGE_RUNS alone writes."""
    return [{"runId": run["runId"], **{name: run[name] for name in LATEST_RUN_FACTS}} for run in runs]


def _latest_run_facts(run_id: str, state: str, last_event_time: str) -> dict[str, str | None]:
    """What a run offers its job and the datasets it wrote as their latest run (`LATEST_RUN_FACTS`), with
    the order key (time, then runId) the graph keeps the newest by."""
    values = (run_id, state, last_event_time or None, run_order_key(last_event_time, run_id))
    return dict(zip(LATEST_RUN_FACTS, values, strict=True))


def _project_event(built: _EventRowsBuilder, event: _Stamped, resolve: Resolve) -> None:
    payload = event.payload
    job = payload.get("job")
    job_key = _add_job(built, event, job) if job else None
    run_id = payload["run"]["runId"].lower() if "run" in payload else None
    if job_key is not None and run_id is None:  # a JobEvent: the job's declared lineage, as of its time
        order = declaration_order(event.time, event.content_hash)
        built.declarations.add(
            (job_key,), event, fixed={"jobKey": job_key}, facts={"declaredOrder": order, "declaredAt": event.time}
        )
    if "dataset" in payload:
        _add_dataset(built, event, payload["dataset"], run_id=None, resolve=resolve)
    checked = {id(dataset): checks for dataset, checks in event_checks(payload)} if run_id is not None else {}
    named: set[str] = set()
    for side in ("inputs", "outputs"):
        for dataset in payload.get(side) or []:
            dataset_key = _add_dataset(built, event, dataset, run_id=run_id, resolve=resolve)
            named.add(dataset_key)
            if job_key is not None:
                _add_job_io(built, event, side, job_key, dataset_key)
                if side == "outputs":
                    _add_job_output_subset(built, event, job_key, dataset_key, dataset)
            if run_id is not None:
                _add_run_io(built, event, side, run_id, dataset_key, dataset)
                _add_run_quality(built, event, run_id, dataset_key, dataset, checked.get(id(dataset)))
            if side == "outputs" and job is not None:
                _add_column_lineage(built, event, dataset, job, resolve)
    if job_key is not None:
        for dataset_key in sorted(inferred_inputs(payload, resolve, named=named)):
            _add_job_io(built, event, "inputs", job_key, dataset_key, inferred=True)
    if job_key is not None and run_id is not None:
        _add_dependencies(built, event, job_key)


def declared_dependencies(payload: Mapping[str, Any], job_key: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Each job dependency a run event declares (`jobDependencies` run facet), as (upstream job key,
    downstream job key, the dependency as sent): its `upstream` jobs lead to the run's job (`job_key`),
    its `downstream` jobs follow it. A job naming itself is left out."""
    facet = ((payload.get("run") or {}).get("facets") or {}).get("jobDependencies")
    if not isinstance(facet, dict) or is_deleted(facet):
        return
    for side in ("upstream", "downstream"):
        for dependency in facet.get(side) or []:
            if not isinstance(dependency, dict) or not isinstance(dependency.get("job"), dict):
                continue  # not as the spec has it: the facet's schema check warned of it
            other = natural_key(dependency["job"]["namespace"], dependency["job"]["name"])
            if other != job_key:
                yield (other, job_key, dependency) if side == "upstream" else (job_key, other, dependency)


def _add_dependencies(built: _EventRowsBuilder, event: _Stamped, job_key: str) -> None:
    for upstream, downstream, dependency in declared_dependencies(event.payload, job_key):
        other = dependency["job"]
        _add_job(built, event, {"namespace": other["namespace"], "name": other["name"]})
        built.job_dependencies.add(
            (upstream, downstream, job_key),
            event,
            fixed={"sourceKey": upstream, "targetKey": downstream, "jobKey": job_key},
            facts={
                "dependencyType": dependency.get("dependency_type"),
                "sequenceTriggerRule": dependency.get("sequence_trigger_rule"),
                "statusTriggerRule": dependency.get("status_trigger_rule"),
            },
        )


def _add_job(built: _EventRowsBuilder, event: _Stamped, job: dict[str, Any]) -> str:
    namespace, name = job["namespace"], job["name"]
    key = natural_key(namespace, name)
    built.namespaces.add((namespace,), event, fixed={"name": namespace})
    built.jobs.add(
        (key,),
        event,
        fixed={"key": key, "nodeId": node_id(NodeType.JOB, namespace, name), "namespace": namespace, "name": name},
    )
    facets = job.get("facets") or {}
    if facets:
        built.job_facets.add(key, sightings_of(facets, event.order_key))
    _add_owners(built.job_owners, event, key, facets)
    _add_tags(built.job_tags, event, key, facets)
    return key


def _add_dataset(
    built: _EventRowsBuilder, event: _Stamped, dataset: dict[str, Any], *, run_id: str | None, resolve: Resolve
) -> str:
    namespace, name = resolve(dataset["namespace"], dataset["name"])
    key = _add_dataset_node(built, event, namespace, name, spelled=dataset["namespace"])
    for link in linked_identifiers(dataset):
        _add_namespace(built, event, link.namespace)
    facets = dataset.get("facets") or {}
    if ((facets.get("lifecycleStateChange") or {}).get("lifecycleStateChange")) == "DROP":
        order = declaration_order(event.time, event.content_hash)
        built.drops.add(
            (key,), event, fixed={"datasetKey": key}, facts={"droppedOrder": order, "droppedAt": event.time}
        )
    if is_deleted(facets.get("columnLineage")):  # the derivations into its fields seen before this are retired
        order = declaration_order(event.time, event.content_hash)
        built.lineage_deletions.add(
            (key,), event, fixed={"datasetKey": key}, facts={"deletedOrder": order, "lineageDeletedAt": event.time}
        )
    descriptive = {name: value for name, value in facets.items() if name not in STRUCTURAL_DATASET_FACETS}
    if descriptive:
        built.dataset_facets.add(key, sightings_of(descriptive, event.order_key))
    schema_fields = (facets.get("schema") or {}).get("fields")
    if schema_fields is not None:
        _add_schema_version(built, event, namespace, name, key, schema_fields, run_id)
    _add_owners(built.dataset_owners, event, key, facets)
    _add_tags(built.dataset_tags, event, key, facets)
    return key


def _flatten_fields(fields: list[dict[str, Any]], prefix: str = "") -> Iterator[tuple[str, str, str]]:
    """Each field, nested ones as `parent.child`, with its type and description ("" when not sent)."""
    for item in fields:
        name = f"{prefix}{item['name']}"
        yield name, item.get("type") or "", item.get("description") or ""
        if item.get("fields"):
            yield from _flatten_fields(item["fields"], prefix=f"{name}.")


def _add_schema_version(
    built: _EventRowsBuilder,
    event: _Stamped,
    namespace: str,
    name: str,
    dataset_key: str,
    schema_fields: list[dict[str, Any]],
    run_id: str | None,
) -> None:
    version, field_names, field_types, descriptions = _schema_shape(json_property(schema_fields))
    key = natural_key(namespace, name, version)
    # `fixed` is read only for the batch's first sighting of the version: later ones skip building it.
    fixed = (
        {}
        if built.versions.has((key,))
        else {
            "key": key,
            "datasetKey": dataset_key,
            "namespace": namespace,
            "name": name,
            "version": version,
            "fieldNames": list(field_names),
            "fieldTypes": list(field_types),
        }
    )
    # Descriptions are no part of a version's identity: a version keeps those of its newest sighting.
    built.versions.add(
        (key,), event, fixed=fixed, facts={"fieldDescriptions": list(descriptions)}, earliest={"createdByRun": run_id}
    )


@functools.lru_cache(maxsize=4096)
def _schema_shape(fields_json: str) -> tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """A schema's version (a hash of its flattened field names and types), those names and types, and
    their descriptions; cached, as most events repeat a schema seen before."""
    flat = list(_flatten_fields(json.loads(fields_json)))
    version = hashlib.sha256(json_property([(n, t) for n, t, _ in flat]).encode()).hexdigest()[:16]
    return version, tuple(n for n, _, _ in flat), tuple(t for _, t, _ in flat), tuple(d for _, _, d in flat)


def _field_row(namespace: str, dataset: str, name: str) -> dict[str, str]:
    return {
        "key": natural_key(namespace, dataset, name),
        "nodeId": node_id(NodeType.DATASET_FIELD, namespace, dataset, name),
        "namespace": namespace,
        "dataset": dataset,
        "name": name,
    }


def _add_field(built: _EventRowsBuilder, event: _Stamped, namespace: str, dataset: str, name: str) -> str:
    """A field named by column lineage; fields named by a schema come with its version."""
    row = _field_row(namespace, dataset, name)
    built.fields.add((row["key"],), event, fixed={**row, "datasetKey": natural_key(namespace, dataset)})
    return row["key"]


def _add_job_io(
    built: _EventRowsBuilder, event: _Stamped, side: str, job_key: str, dataset_key: str, *, inferred: bool = False
) -> None:
    if side == "inputs":
        fixed = {"datasetKey": dataset_key, "jobKey": job_key}
        built.job_inputs.add((dataset_key, job_key), event, fixed=fixed, every={"inferred": inferred})
    else:
        built.job_outputs.add((dataset_key, job_key), event, fixed={"datasetKey": dataset_key, "jobKey": job_key})


def inferred_inputs(payload: Mapping[str, Any], resolve: Resolve, *, named: Set[str]) -> set[str]:
    """The datasets (by key) an event's column lineage names as sources of its outputs that are not among those
    it `named` (the keys of its inputs and outputs): its inputs inferred from column lineage (openlineage-dbt
    lists only a model's model and source parents as inputs, while its column lineage names the seeds it reads)."""
    sources = {
        (source["namespace"], source["name"])
        for dataset in payload.get("outputs") or []
        for _, source in column_sources(dataset)
    }
    return {key for key in (natural_key(*resolve(*source)) for source in sources) if key not in named}


def _add_job_output_subset(
    built: _EventRowsBuilder, event: _Stamped, job_key: str, dataset_key: str, dataset: dict[str, Any]
) -> None:
    subset = subset_text(dataset, "outputs")
    if subset is not None:
        built.job_output_subsets.add(
            (job_key, dataset_key),
            event,
            fixed={"jobKey": job_key, "datasetKey": dataset_key},
            facts={"lastSubset": subset, "lastSubsetAt": event.time},
        )


def _add_run_io(
    built: _EventRowsBuilder,
    event: _Stamped,
    side: str,
    run_id: str,
    dataset_key: str,
    dataset: dict[str, Any],
) -> None:
    edges, statistics = (
        (built.run_reads, built.run_read_statistics)
        if side == "inputs"
        else (built.run_writes, built.run_write_statistics)
    )
    identity = (run_id, dataset_key)
    fixed = {"runId": run_id, "datasetKey": dataset_key}
    edges.add(identity, event, fixed=fixed)
    if side == "inputs":
        stats = (dataset.get("inputFacets") or {}).get("inputStatistics")
    else:
        stats = (dataset.get("outputFacets") or {}).get("outputStatistics")
    if stats:
        statistics.add(
            identity,
            event,
            fixed=fixed,
            facts={"rowCount": stats.get("rowCount"), "bytes": stats.get("size"), "fileCount": stats.get("fileCount")},
        )
    subset = subset_text(dataset, side)
    if subset is not None:
        subsets = built.run_read_subsets if side == "inputs" else built.run_write_subsets
        subsets.add(identity, event, fixed=fixed, facts={"subset": subset})


def _add_run_quality(
    built: _EventRowsBuilder,
    event: _Stamped,
    run_id: str,
    dataset_key: str,
    dataset: dict[str, Any],
    checks: list[dict[str, Any]] | None,
) -> None:
    """A run's data-quality checks (`checks`, from `graph.quality.event_checks`) and metrics of a dataset."""
    metrics = dataset_metrics(dataset)
    if not checks and metrics is None:
        return
    identity = (run_id, dataset_key)
    fixed = {"runId": run_id, "datasetKey": dataset_key}
    version = dataset_version(dataset)
    if checks:
        facts = {
            "checksJson": json_property(checks),
            "status": checks_status(checks),
            "checkedAt": event.time,
            "checksVersion": version,
        }
        built.run_checks.add(identity, event, fixed=fixed, facts=facts)
    if metrics is not None:
        facts = {"metricsJson": json_property(metrics), "measuredAt": event.time, "metricsVersion": version}
        built.run_metrics.add(identity, event, fixed=fixed, facts=facts)


def _add_column_lineage(
    built: _EventRowsBuilder, event: _Stamped, dataset: dict[str, Any], job: dict[str, Any], resolve: Resolve
) -> None:
    facet = (dataset.get("facets") or {}).get("columnLineage")
    if not facet or is_deleted(facet):
        return
    namespace, name = resolve(dataset["namespace"], dataset["name"])
    job_id = node_id(NodeType.JOB, job["namespace"], job["name"])
    for output_field in facet.get("fields") or {}:
        _add_field(built, event, namespace, name, output_field)
    for output_field, source in column_sources(dataset):
        _add_derivation(built, event, source, natural_key(namespace, name, output_field), job_id, resolve)


def column_sources(dataset: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each (output field, input field it derives from) a dataset's `columnLineage` facet declares: its
    field mappings, then its whole-dataset dependencies (filters, joins, grouping), which reach every
    output field. Nothing for a deleted facet."""
    facet = (dataset.get("facets") or {}).get("columnLineage")
    if not facet or is_deleted(facet):
        return
    output_fields = facet.get("fields") or {}
    for output_field, mapping in output_fields.items():
        for source in mapping.get("inputFields") or []:
            yield output_field, source
    for source in facet.get("dataset") or []:
        for output_field in output_fields:
            yield output_field, source


def _add_derivation(
    built: _EventRowsBuilder,
    event: _Stamped,
    source: dict[str, Any],
    target_key: str,
    job_id: str,
    resolve: Resolve,
) -> None:
    # A dataset named only by column lineage still gets its node, so its field has a home.
    namespace, name = resolve(source["namespace"], source["name"])
    _add_dataset_node(built, event, namespace, name, spelled=source["namespace"])
    source_key = _add_field(built, event, namespace, name, source["field"])
    transformations = source.get("transformations") or []
    first = transformations[0] if transformations else {}
    built.derivations.add(
        (source_key, target_key, job_id),
        event,
        fixed={"sourceKey": source_key, "targetKey": target_key, "job": job_id},
        facts={
            "transformation": first.get("type"),
            "subtype": first.get("subtype"),
            "indirect": any(t.get("type") == "INDIRECT" for t in transformations),
            "description": first.get("description"),
            "masking": bool(first.get("masking", False)),
            "transformationsJson": json_property(transformations),
        },
    )


def _add_namespace(built: _EventRowsBuilder, event: _Stamped, spelled: str) -> None:
    """The namespace as the event spells it, normalised: never the canonical dataset's, so which
    namespaces exist (and when they were seen) does not depend on when an alias became known."""
    namespace = identity_normalise(spelled, "x")[0]
    built.namespaces.add((namespace,), event, fixed={"name": namespace})


def _add_dataset_node(built: _EventRowsBuilder, event: _Stamped, namespace: str, name: str, *, spelled: str) -> str:
    key = natural_key(namespace, name)
    _add_namespace(built, event, spelled)
    built.datasets.add(
        (key,),
        event,
        fixed={"key": key, "nodeId": node_id(NodeType.DATASET, namespace, name), "namespace": namespace, "name": name},
    )
    return key


def _add_tags(rows: _Rows, event: _Stamped, target_key: str, facets: dict[str, Any]) -> None:
    for tag in tag_texts(facets):
        rows.add((target_key, tag), event, fixed={"targetKey": target_key, "tag": tag})


def _add_owners(rows: _Rows, event: _Stamped, target_key: str, facets: dict[str, Any]) -> None:
    for owner in (facets.get("ownership") or {}).get("owners") or []:
        role = owner.get("type") or "OWNER"
        rows.add(
            (target_key, owner["name"], role),
            event,
            fixed={"targetKey": target_key, "owner": owner["name"], "role": role, "kind": owner_kind(owner["name"])},
        )
