"""Node ids (`dataset:<namespace>:<name>`, `job:…`, `datasetField:…:<field>`): resolving one to its graph node."""

from __future__ import annotations

from lineage_app.graph import listings
from lineage_app.graph.identity import identity_key, identity_normalise
from lineage_app.graph.model import KEY_SEPARATOR, Label, NodeType, natural_key
from lineage_app.graph.traversal import NodeRef, node_find

NODE_LABELS = {NodeType.DATASET: Label.DATASET, NodeType.JOB: Label.JOB, NodeType.DATASET_FIELD: Label.FIELD}


class NodeNotFound(LookupError):
    pass


def _candidates(rest: str, parts: int) -> list[str]:
    """Every way to split `rest` at ':' into `parts` non-empty-looking parts, as natural keys."""
    positions = [i for i, char in enumerate(rest) if char == ":"]
    if parts == 2:
        return [natural_key(rest[:i], rest[i + 1 :]) for i in positions]
    return [
        natural_key(rest[:i], rest[i + 1 : j], rest[j + 1 :])
        for n, i in enumerate(positions)
        for j in positions[n + 1 :]
    ]


def node_resolve(*, node_id: str, kinds: tuple[NodeType, ...] = (NodeType.DATASET, NodeType.JOB)) -> NodeRef:
    """The graph node a `dataset:…`, `job:…` or `datasetField:…` id names, if it is one of `kinds`.

    Namespaces and names may themselves contain ':' (`file://…`, `host:5432`), so every
    split is tried and the one that exists wins.
    """
    kind, _, rest = node_id.partition(":")
    allowed = {k.value: k for k in kinds}
    if kind not in allowed:
        expected = " or ".join(f"'{k.value}:'" for k in kinds)
        raise NodeNotFound(f"nodeId must start with {expected} (got {node_id!r})")
    label = NODE_LABELS[allowed[kind]]
    candidates = _candidates(rest, 3 if label is Label.FIELD else 2)
    key = node_find(label=label, candidate_keys=candidates) if candidates else None
    if key is None and label is Label.DATASET and candidates:
        # An alias (another spelling, a symlinked name) names its canonical dataset (invariant 9).
        normal = [identity_key(*identity_normalise(*c.split(KEY_SEPARATOR, 1))) for c in candidates]
        key = listings.dataset_alias_resolve(candidate_keys=list(dict.fromkeys(candidates + normal)))
    if key is None:
        raise NodeNotFound(f"no {kind} with id {node_id!r}")
    return (label, key)
