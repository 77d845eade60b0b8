"""The graph's vocabulary: node labels, relationship types, node types, node references, run states and natural keys."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

KEY_SEPARATOR = "\x1f"  # cannot appear in names, so joined keys never collide


class Label(StrEnum):
    NAMESPACE = "Namespace"
    DATASET = "Dataset"
    DATASET_VERSION = "DatasetVersion"
    FIELD = "Field"
    JOB = "Job"
    RUN = "Run"
    OWNER = "Owner"
    TAG = "Tag"
    # The alias registry: one node per dataset name as events spelled it (docs/identity.md).
    DATASET_ALIAS = "DatasetAlias"
    # A backfill `init_graph` finished on this graph (`graph.schema`), so that it never scans the graph for it again.
    BACKFILL = "Backfill"


class Rel(StrEnum):
    HAS_RUN = "HAS_RUN"
    READ = "READ"
    WROTE = "WROTE"
    INPUT_TO = "INPUT_TO"
    OUTPUTS = "OUTPUTS"
    HAS_FIELD = "HAS_FIELD"
    HAS_VERSION = "HAS_VERSION"
    DERIVES = "DERIVES"
    CHILD_OF = "CHILD_OF"
    OWNED_BY = "OWNED_BY"
    TAGGED = "TAGGED"  # (Dataset|Job|Run)-[:TAGGED]->(Tag): any tag its events gave it; search: its `tags`
    SAME_AS = "SAME_AS"  # (DatasetAlias)-[:SAME_AS]->(DatasetAlias): a `symlinks` identifier
    CHECKED = "CHECKED"  # (Run)-[:CHECKED]->(Dataset): the run's data-quality checks and metrics of it
    # (Job)-[:PRECEDES {declaredBy}]->(Job): a job dependency a run declared (`jobDependencies` run facet)
    PRECEDES = "PRECEDES"


@dataclass(frozen=True, slots=True)
class Moment:
    """Which lineage edges a read follows (`graph.validity`): those current now (the default), or those
    valid `at` an instant (seen by then, not yet stale then); with `stale`, stale ones as well. Without
    `inferred`, inputs inferred from column lineage (docs/dbt.md) are left out."""

    at: str | None = None
    stale: bool = False
    inferred: bool = True


NOW = Moment()


# A node by its label and natural key: how every module names a node (a traversal's frontier, an owner's target).
NodeRef = tuple[Label, str]


class NodeType(StrEnum):
    """The kinds of node the API names: values are their `nodeId` prefixes (Marquez's convention),
    names their API `type` (`DATASET_FIELD`)."""

    DATASET = "dataset"
    JOB = "job"
    DATASET_FIELD = "datasetField"
    RUN = "run"


# The one mapping between graph labels and API node types; every other spelling derives from it.
NODE_TYPES: dict[Label, NodeType] = {
    Label.DATASET: NodeType.DATASET,
    Label.JOB: NodeType.JOB,
    Label.FIELD: NodeType.DATASET_FIELD,
    Label.RUN: NodeType.RUN,
}
NODE_LABELS: dict[NodeType, Label] = {node_type: label for label, node_type in NODE_TYPES.items()}
API_TYPES: dict[Label, str] = {label: node_type.name for label, node_type in NODE_TYPES.items()}
# The API types read endpoints answer with: lineage graphs hold datasets and jobs, assets fields too.
LINEAGE_NODE_TYPES: tuple[str, ...] = (NodeType.DATASET.name, NodeType.JOB.name)
ASSET_TYPES: tuple[str, ...] = (*LINEAGE_NODE_TYPES, NodeType.DATASET_FIELD.name)
# The one node type of column lineage, as API choices name it.
FIELD_NODE_TYPES: tuple[str, ...] = (NodeType.DATASET_FIELD.name,)

# What owners are assigned to, by the name ownership uses for each (`namespace:<name>` ids included).
OWNED_TARGETS: dict[str, Label] = {
    "namespace": Label.NAMESPACE,
    NodeType.DATASET.value: Label.DATASET,
    NodeType.JOB.value: Label.JOB,
}


class OwnershipSource(StrEnum):
    """Where an `OWNED_BY` edge came from: set by hand (the admin; it wins), or an event's `ownership` facet."""

    MANUAL = "manual"
    EVENT = "event"


class RunState(StrEnum):
    """A run's state on its node, folded from its events (`graph.run_state`)."""

    NEW = "NEW"
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    ABORTED = "ABORTED"


# The states a failure is: plain strings in a fixed order (query parameters and API choices).
FAILED_STATES: tuple[str, ...] = (RunState.FAILED.value, RunState.ABORTED.value)
# The states of runs in the failure history: those, and COMPLETED for a run that failed its data-quality checks.
FAILURE_STATES: tuple[str, ...] = (*FAILED_STATES, RunState.COMPLETED.value)

# Lineage granularity: application jobs (their action jobs folded in), or the action jobs as recorded.
LEVELS = ("application", "action")


def key_seek(var: str, label: Label, prop: str) -> str:
    """A planner hint: `var` is found by seeking its `label`'s index on `prop`, a key the statement's row names.
    Neo4j plans from sampled index statistics; while a new graph's indexes are sampled empty, it may read a whole
    index (or join a scan of a label) per row instead (docs/apply-throughput.md). Both engines accept the hint."""
    return f"USING INDEX SEEK {var}:{label}({prop})"


def natural_key(*parts: str) -> str:
    """The unique `key` property of a Dataset, Job, Field or DatasetVersion node."""
    return KEY_SEPARATOR.join(parts)


def run_order_key(last_event_time: str, run_id: str) -> str:
    """Which of a node's runs is its latest: the later last event, then the greater runId."""
    return f"{last_event_time}{KEY_SEPARATOR}{run_id}"


def json_property(value: Any) -> str:
    """A facet map or list as a graph property: compact JSON with sorted keys, so the same value is
    always the same text (a re-sent event rewrites nothing, and graph dumps compare equal)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def utc_key(moment: str, content_hash: str) -> str:
    """A total order over events: their UTC time, then their content hash to break ties."""
    return f"{moment}|{content_hash}"


class OwnerKind(StrEnum):
    """What an owner is: the catalog's `Owner.Kind` and the graph's `Owner` nodes both spell it so."""

    PERSON = "person"
    TEAM = "team"


# Plain strings (API choices name their enum by these).
OWNER_KINDS: tuple[str, ...] = tuple(kind.value for kind in OwnerKind)


def owner_kind(name: str) -> OwnerKind:
    """An owner's kind as told by its name (the OpenLineage convention "team:payments",
    "user:alice"), in the catalog's terms: `team` for `team:` and `group:` names, else `person`."""
    return OwnerKind.TEAM if name.partition(":")[0] in {"team", "group"} else OwnerKind.PERSON
