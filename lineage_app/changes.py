"""What applying events changed, as records, and the consumers that read them (ownership's mirror, alerts).

Ingest publishes the records of each applied batch once the graph holds it (`changes_publish`); apps
register a consumer in their `AppConfig.ready` (`consumer_register`), so ingest imports none of them.
A consumer only writes rows of its own (in its own transaction): it must never call out to a network
service, which is what keeps a slow destination from ever slowing apply. An optional consumer that
raises is logged and counted, and the others still run: the events stay applied.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lineage_app.graph.events import EventRecord
from lineage_app.observability.metrics import CHANGE_CONSUMER_ERRORS

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class EventsApplied:
    """The events of one applied batch, as the graph read them."""

    events: tuple[EventRecord, ...]


@dataclass(frozen=True, kw_only=True)
class RunEnded:
    """A run reached COMPLETED, FAILED or ABORTED (its fold, after this batch)."""

    run_id: str
    job_namespace: str
    job_name: str
    state: str
    ended_at: str | None
    failure_cause: str | None
    failure_class: str | None
    # The datasets (namespace, name as sent) whose data-quality checks failed in the run: where a
    # `data_quality` failure's blast radius starts, beside the job's own outputs.
    tested: tuple[tuple[str, str], ...] = ()
    # The job of the run's parent run (a Spark action's application, an orchestrator's task's DAG), if any.
    parent_job: tuple[str, str] | None = None


@dataclass(frozen=True, kw_only=True)
class SchemaChanged:
    """A dataset got a new schema version that adds, removes or retypes fields (`graph.schema_fields`)."""

    namespace: str
    name: str
    run_id: str | None
    added: tuple[str, ...]
    removed: tuple[str, ...]
    retyped: tuple[str, ...]
    # (old, new): removed and added fields read as renames (`graph.schema_fields`); in both lists as well.
    renamed: tuple[tuple[str, str], ...] = ()

    @property
    def breaking(self) -> bool:
        return bool(self.removed or self.retyped)


@dataclass(frozen=True, kw_only=True)
class NewConsumer:
    """A job read a dataset it had never read before (the graph held no input edge from it): a new
    downstream consumer, which the dataset's owners may want to know of."""

    namespace: str
    name: str
    job_namespace: str
    job_name: str


@dataclass(frozen=True, kw_only=True)
class DatasetDropped:
    """An event said a dataset was dropped (`lifecycleStateChange: DROP`)."""

    namespace: str
    name: str
    run_id: str | None


@dataclass(frozen=True, kw_only=True)
class VerificationProblem:
    """An event whose signature did not verify (invalid, unknown key, revoked key, …); `quarantined` when
    an enforcing policy held it back."""

    event_id: int
    run_id: str
    job_namespace: str
    job_name: str
    status: str
    reason: str
    quarantined: bool


@dataclass(frozen=True, kw_only=True)
class GraphRebuilt:
    """`rebuild_graph` replayed the log into an empty graph (its replay publishes nothing else)."""


ChangeRecord = (
    EventsApplied | RunEnded | SchemaChanged | NewConsumer | DatasetDropped | VerificationProblem | GraphRebuilt
)
Consumer = Callable[[Sequence[ChangeRecord]], None]
Wanted = Callable[[type], bool]


@dataclass(frozen=True)
class _Registration:
    consumer: Consumer
    kinds: frozenset[type]
    required: bool
    wanted: Wanted | None


_consumers: dict[str, _Registration] = {}


def consumer_register(
    *, name: str, consumer: Consumer, kinds: Sequence[type], required: bool = False, wanted: Wanted | None = None
) -> None:
    """Have `consumer` called with the records of `kinds` of every applied batch (registering a name
    again replaces it, so a reloaded app config registers once); `wanted`, if given, says whether it
    reads a kind right now (a record whose alert rule is off need not be worked out).

    A `required` consumer's error fails the apply, which the task retries (its writes must be
    idempotent): ownership's mirror is part of what apply means. Any other's is logged and counted."""
    _consumers[name] = _Registration(consumer, frozenset(kinds), required, wanted)


def changes_wanted(kind: type) -> bool:
    """Whether any consumer reads records of `kind` now: a record nobody reads need not be worked out."""
    return any(kind in r.kinds and (r.wanted is None or r.wanted(kind)) for r in _consumers.values())


def changes_publish(records: Sequence[ChangeRecord]) -> None:
    """Hand each consumer the records of the kinds it registered for, in registration order."""
    for name, registration in list(_consumers.items()):
        wanted = [record for record in records if type(record) in registration.kinds]
        if not wanted:
            continue
        if registration.required:
            registration.consumer(wanted)
            continue
        try:
            registration.consumer(wanted)
        except Exception:
            CHANGE_CONSUMER_ERRORS.labels(consumer=name).inc()
            logger.exception("change consumer %s failed on %d record(s)", name, len(wanted))
