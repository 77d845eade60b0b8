"""Which graph node an API id names: every split of the id tried, aliases followed to their canonical dataset."""

from __future__ import annotations

from lineage_app.graph.identity import identity_key, identity_normalise
from lineage_app.graph.listings import dataset_alias_resolve
from lineage_app.graph.model import KEY_SEPARATOR, NODE_LABELS, OWNED_TARGETS, Label, NodeRef, NodeType
from lineage_app.graph.node_ids import SEPARATOR, NodeNotFound, namespace_id_parse, node_id_candidate_keys, node_id_kind
from lineage_app.graph.traversal import node_find


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
        key = dataset_alias_resolve(candidate_keys=list(dict.fromkeys(candidates + normal)))
    if key is None:
        raise NodeNotFound(f"no {kind} with id {node_id!r}")
    return (label, key)


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
