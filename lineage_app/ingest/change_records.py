"""The change records of one applied batch (`lineage_app.changes`): what its events changed, worked out
only for the kinds some consumer reads."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from lineage_app.changes import (
    ChangeRecord,
    DatasetDropped,
    NewConsumer,
    RunEnded,
    SchemaChanged,
    VerificationProblem,
    changes_wanted,
)
from lineage_app.graph.events import EventRecord
from lineage_app.graph.failure_cause import DATA_QUALITY
from lineage_app.graph.impact import root_cause_events
from lineage_app.graph.model import KEY_SEPARATOR, Label, RunState
from lineage_app.graph.quality import FAILED, event_checks
from lineage_app.graph.run_state import RunFold
from lineage_app.ingest.models import LineageEvent
from lineage_protocol import VerificationStatus

ENDED = frozenset({RunState.COMPLETED.value, RunState.FAILED.value, RunState.ABORTED.value})
# A signature that is there and fails, or a key the registry refuses; unsigned is a policy matter, not a problem.
PROBLEMS = frozenset(VerificationStatus) - {VerificationStatus.VERIFIED, VerificationStatus.UNSIGNED}


def change_records(
    *,
    checked: Sequence[LineageEvent],
    applied: Sequence[EventRecord],
    folds: Iterable[RunFold],
    new_versions: frozenset[str] = frozenset(),
    new_inputs: frozenset[tuple[str, str]] = frozenset(),
) -> list[ChangeRecord]:
    """The records of a batch: `checked` its events after verification (quarantined ones included),
    `applied` those applied, `folds` its runs' folds, `new_versions` the datasets with a new schema version,
    `new_inputs` the (dataset key, job key) input edges the graph did not hold before."""
    records: list[ChangeRecord] = []
    if changes_wanted(VerificationProblem):
        records += _verification_problems(checked)
    if changes_wanted(RunEnded):
        for fold in folds:
            if fold.state in ENDED:
                records.append(
                    RunEnded(
                        run_id=fold.run_id,
                        job_namespace=fold.job_namespace,
                        job_name=fold.job_name,
                        state=fold.state,
                        ended_at=fold.ended_at,
                        failure_cause=fold.failure_cause,
                        failure_class=fold.failure_class,
                        tested=_failing_checks(fold) if fold.failure_class == DATA_QUALITY else (),
                        parent_job=(fold.parent.job_namespace, fold.parent.job_name) if fold.parent else None,
                    )
                )
    if changes_wanted(SchemaChanged) and new_versions:
        records += _schema_changes(new_versions, {r.payload.get("run", {}).get("runId") for r in applied})
    if changes_wanted(NewConsumer):
        records += [_new_consumer(dataset, job) for dataset, job in sorted(new_inputs)]
    if changes_wanted(DatasetDropped):
        records += _drops(applied)
    return records


def _failing_checks(fold: RunFold) -> tuple[tuple[str, str], ...]:
    """The datasets the run reported a failing data-quality check on (`graph.quality`)."""
    found: dict[tuple[str, str], None] = {}
    for event in fold.events:
        for dataset, checks in event_checks(event.payload):
            if dataset.get("namespace") and any(check["outcome"] == FAILED for check in checks):
                found[(str(dataset["namespace"]), str(dataset["name"]))] = None
    return tuple(found)


def _verification_problems(events: Sequence[LineageEvent]) -> list[ChangeRecord]:
    return [
        VerificationProblem(
            event_id=event.id,
            run_id=event.run_id,
            job_namespace=event.job_namespace,
            job_name=event.job_name,
            status=event.verification,
            reason=event.status_reason,
            quarantined=event.status == LineageEvent.Status.QUARANTINED,
        )
        for event in events
        if event.verification in PROBLEMS
    ]


def _schema_changes(dataset_keys: frozenset[str], run_ids: set[str | None]) -> list[ChangeRecord]:
    """The schema changes the batch's runs made to `dataset_keys` (a version these runs created)."""
    found: list[ChangeRecord] = []
    history = root_cause_events(refs=[(Label.DATASET, key) for key in sorted(dataset_keys)])
    for (_, key), events in history.items():
        namespace, name = key.split(KEY_SEPARATOR)
        for event in events:
            if event["kind"] == "schema_change" and event["runId"] in run_ids:
                found.append(
                    SchemaChanged(
                        namespace=namespace,
                        name=name,
                        run_id=event["runId"],
                        added=tuple(event["added"]),
                        removed=tuple(event["removed"]),
                        retyped=tuple(event["retyped"]),
                        renamed=tuple((rename["from"], rename["to"]) for rename in event["renamed"]),
                    )
                )
    return found


def _new_consumer(dataset_key: str, job_key: str) -> ChangeRecord:
    namespace, name = dataset_key.split(KEY_SEPARATOR)
    job_namespace, job_name = job_key.split(KEY_SEPARATOR)
    return NewConsumer(namespace=namespace, name=name, job_namespace=job_namespace, job_name=job_name)


def _drops(applied: Sequence[EventRecord]) -> list[ChangeRecord]:
    found: dict[tuple[str, str], ChangeRecord] = {}
    for record in applied:
        payload = record.payload
        for dataset in [*(payload.get("outputs") or []), payload.get("dataset") or {}]:
            facets = dataset.get("facets") or {}
            if (facets.get("lifecycleStateChange") or {}).get("lifecycleStateChange") == "DROP":
                where = (dataset["namespace"], dataset["name"])
                found[where] = DatasetDropped(
                    namespace=where[0], name=where[1], run_id=(payload.get("run") or {}).get("runId")
                )
    return list(found.values())
