"""Node ids (`dataset:<ns>:<name>`, `job:…`, `datasetField:…`, `run:<id>`, `namespace:<ns>`): write, parse, resolve."""

from __future__ import annotations

from lineage_app.graph import listings
from lineage_app.graph.identity import identity_key, identity_normalise
from lineage_app.graph.model import KEY_SEPARATOR, NODE_LABELS, NODE_TYPES, OWNED_TARGETS, Label, NodeType, natural_key
from lineage_app.graph.traversal import NodeRef, node_find

SEPARATOR = ":"
# How ownership names a namespace in a node id (`namespace:<name>`): namespaces are no lineage node type.
NAMESPACE_KIND = next(target for target, label in OWNED_TARGETS.items() if label is Label.NAMESPACE)


class NodeNotFound(LookupError):
    pass


def node_id(node_type: NodeType, *parts: str) -> str:
    """The API id of a node from its parts, e.g. `dataset:<namespace>:<name>`, `run:<runId>`."""
    return SEPARATOR.join([node_type.value, *parts])


def node_ref_id(ref: NodeRef) -> str:
    """The API id of a node named by its label and natural key."""
    label, key = ref
    return node_id(NODE_TYPES[label], *key.split(KEY_SEPARATOR))


def node_namespace(ref: NodeRef) -> str:
    """The namespace a node belongs to: a namespace's own name, else the first part of the node's natural key."""
    label, key = ref
    return key if label is Label.NAMESPACE else key.split(KEY_SEPARATOR, 1)[0]


def node_id_kind(node_id: str) -> str:
    """What a node id says it names: the text before its first ':' (`dataset`, `job`, …)."""
    return node_id.partition(SEPARATOR)[0]


def node_id_candidate_keys(*, node_id: str, label: Label) -> list[str]:
    """Every natural key a `label` node's id may stand for, in order of the first ':' split.

    Namespaces and names may themselves contain ':' (`file://…`, `host:5432`), so an id after its
    kind splits at any ':' into namespace and name (and, for a field, name and field).
    """
    rest = node_id.partition(SEPARATOR)[2]
    positions = [i for i, char in enumerate(rest) if char == SEPARATOR]
    if label is not Label.FIELD:
        return [natural_key(rest[:i], rest[i + 1 :]) for i in positions]
    return [
        natural_key(rest[:i], rest[i + 1 : j], rest[j + 1 :])
        for n, i in enumerate(positions)
        for j in positions[n + 1 :]
    ]


def node_resolve(*, node_id: str, kinds: tuple[NodeType, ...] = (NodeType.DATASET, NodeType.JOB)) -> NodeRef:
    """The graph node a `dataset:…`, `job:…` or `datasetField:…` id names, if it is one of `kinds`.

    Every split of the id (`node_id_candidate_keys`) is tried and the one that exists wins.
    """
    kind = node_id_kind(node_id)
    allowed = {k.value: k for k in kinds}
    if kind not in allowed:
        expected = " or ".join(f"'{k.value}:'" for k in kinds)
        raise NodeNotFound(f"nodeId must start with {expected} (got {node_id!r})")
    label = NODE_LABELS[allowed[kind]]
    candidates = node_id_candidate_keys(node_id=node_id, label=label)
    key = node_find(label=label, candidate_keys=candidates) if candidates else None
    if key is None and label is Label.DATASET and candidates:
        # An alias (another spelling, a symlinked name) names its canonical dataset (invariant 9).
        normal = [identity_key(*identity_normalise(*c.split(KEY_SEPARATOR, 1))) for c in candidates]
        key = listings.dataset_alias_resolve(candidate_keys=list(dict.fromkeys(candidates + normal)))
    if key is None:
        raise NodeNotFound(f"no {kind} with id {node_id!r}")
    return (label, key)


def namespace_id_parse(*, node_id: str) -> str | None:
    """The namespace a `namespace:<name>` id names, or None when `node_id` is not a namespace id."""
    kind, separator, name = node_id.partition(SEPARATOR)
    if kind != NAMESPACE_KIND or not separator:
        return None
    if not name:
        raise NodeNotFound(f"nodeId '{NAMESPACE_KIND}{SEPARATOR}' needs a namespace name")
    return name


def owned_node_resolve(*, node_id: str) -> NodeRef:
    """What an owner can be assigned to, by id: a namespace (`namespace:<name>`), a dataset or a job."""
    namespace = namespace_id_parse(node_id=node_id)
    if namespace is not None:
        return (Label.NAMESPACE, namespace)
    try:
        return node_resolve(node_id=node_id, kinds=(NodeType.DATASET, NodeType.JOB))
    except NodeNotFound as exc:
        if SEPARATOR in node_id and node_id_kind(node_id) not in OWNED_TARGETS:
            raise NodeNotFound(f"nodeId must start with 'dataset:', 'job:' or 'namespace:' (got {node_id!r})") from exc
        raise
