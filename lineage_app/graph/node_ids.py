"""Node ids (`dataset:<ns>:<name>`, `job:…`, `datasetField:…`, `run:<id>`, `namespace:<ns>`): write and parse.

Pure: which graph node an id names is `graph.node_resolve`'s question.
"""

from __future__ import annotations

from lineage_app.graph.model import KEY_SEPARATOR, NODE_TYPES, OWNED_TARGETS, Label, NodeRef, NodeType, natural_key

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


def namespace_id_parse(*, node_id: str) -> str | None:
    """The namespace a `namespace:<name>` id names, or None when `node_id` is not a namespace id."""
    kind, separator, name = node_id.partition(SEPARATOR)
    if kind != NAMESPACE_KIND or not separator:
        return None
    if not name:
        raise NodeNotFound(f"nodeId '{NAMESPACE_KIND}{SEPARATOR}' needs a namespace name")
    return name
