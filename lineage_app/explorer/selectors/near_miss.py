"""Why two datasets are not connected: the path between them if there is one, else the nearest near-misses."""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import Any

from django.conf import settings

from lineage_app.graph import listings
from lineage_app.graph.model import KEY_SEPARATOR, Label, NodeType
from lineage_app.graph.node_ids import NodeNotFound
from lineage_app.graph.node_resolve import node_resolve
from lineage_app.graph.traversal import path_length_find

NEAR_MISS_LIMIT = 10  # explanations in one answer
NEAR_MISS_SCAN = 200  # datasets one job away, and same-name datasets, looked at per side
SIMILAR = 0.8  # table-name similarity (difflib ratio) that counts as "similarly named"
SIDES = (("a", "b"), ("b", "a"))  # each side, and the other


class NodeParameterNotFound(NodeNotFound):
    def __init__(self, message: str, *, parameter: str) -> None:
        super().__init__(message)
        self.parameter = parameter


def dataset_near_miss(*, a: str, b: str) -> dict[str, Any]:
    """Why two datasets have no lineage path, as the nearest near-misses: same name in another namespace,
    an alias of one seen elsewhere, a job that read one and wrote a similarly named one; or that they are
    connected, with the path length."""
    refs = {parameter: _dataset_key(parameter, value) for parameter, value in (("a", a), ("b", b))}
    facts = {
        side: listings.near_miss_facts(key=key, name=key.split(KEY_SEPARATOR, 1)[1], limit=NEAR_MISS_SCAN)
        for side, key in refs.items()
    }
    ids = {side: facts[side]["id"] for side in refs}
    answer: dict[str, Any] = {
        "a": ids["a"],
        "b": ids["b"],
        "connected": False,
        "pathLength": None,
        "direction": None,
        "nearMisses": [],
    }
    path = _path(refs)
    if path is not None:
        return {**answer, "connected": True, "pathLength": path[0], "direction": path[1]}
    misses = [*_same_names(facts), *_aliases(facts, ids), *_neighbours(facts, ids)]
    answer["nearMisses"] = misses[:NEAR_MISS_LIMIT]
    return answer


def _dataset_key(parameter: str, node_id: str) -> str:
    try:
        return node_resolve(node_id=node_id, kinds=(NodeType.DATASET,))[1]
    except NodeNotFound as exc:
        raise NodeParameterNotFound(str(exc), parameter=parameter) from exc


def _path(refs: dict[str, str]) -> tuple[int, str] | None:
    """The length and direction of the shortest lineage path between the two datasets, if there is one."""
    if refs["a"] == refs["b"]:
        return 0, "same dataset"
    for direction, (start, goal) in (("a to b", ("a", "b")), ("b to a", ("b", "a"))):
        length = path_length_find(
            start=(Label.DATASET, refs[start]), goal=(Label.DATASET, refs[goal]), depth=settings.LINEAGE_MAX_DEPTH
        )
        if length is not None:
            return length, direction
    return None


def _table_name(name: str) -> str:
    """The last path segment or dotted part of a dataset name: `warehouse/orders` and `sales.orders` -> `orders`."""
    return name.rstrip("/").rsplit("/", 1)[-1].rsplit(".", 1)[-1].lower()


def _similar(left: str, right: str) -> bool:
    a, b = _table_name(left), _table_name(right)
    return a == b or SequenceMatcher(None, a, b).ratio() >= SIMILAR


def _same_names(facts: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The two datasets share a name in different namespaces, or at least their table name."""
    fa, fb = facts["a"], facts["b"]
    if fa["name"] == fb["name"]:
        message = (
            f"both are named {fa['name']!r}, in namespaces {fa['namespace']!r} and "
            f"{fb['namespace']!r}: one table under two namespaces? Add a site rule "
            "(NAMESPACE_ALIASES) or a symlinks facet."
        )
        return [{"kind": "same_name_other_namespace", "via": [], "message": message}]
    if _table_name(fa["name"]) == _table_name(fb["name"]):
        message = (
            f"both end in {_table_name(fa['name'])!r} ({fa['name']!r} in {fa['namespace']!r}, "
            f"{fb['name']!r} in {fb['namespace']!r})"
        )
        return [{"kind": "same_table_name", "via": [], "message": message}]
    return []


def _aliases(facts: dict[str, dict[str, Any]], ids: dict[str, str]) -> list[dict[str, Any]]:
    """One dataset is (or was) also named like the other, but no event links the two."""
    misses: list[dict[str, Any]] = []
    for this, other in SIDES:
        for namespace, name in facts[this]["aliases"]:
            own = (namespace, name) == (facts[this]["namespace"], facts[this]["name"])
            if not own and _similar(name, facts[other]["name"]):
                message = (
                    f"{ids[this]} is also named {name!r} in {namespace!r}, like "
                    f"{ids[other]}; no event links it to {ids[other]}"
                )
                misses.append({"kind": "alias_seen_elsewhere", "via": [], "message": message})
        for row in facts[this]["sameName"]:
            if row["id"] == ids[other]:
                message = (
                    f"{ids[other]} was also named {row['name']!r} (in {row['namespace']!r}), the name of {ids[this]}"
                )
                misses.append({"kind": "alias_seen_elsewhere", "via": [], "message": message})
    return misses


def _neighbours(facts: dict[str, dict[str, Any]], ids: dict[str, str]) -> list[dict[str, Any]]:
    """A job read one dataset and wrote one named like the other (or read one so named and wrote it)."""
    misses: list[dict[str, Any]] = []
    for this, other in SIDES:
        for row in facts[this]["neighbours"]:
            if row["id"] in ids.values() or not _similar(row["name"], facts[other]["name"]):
                continue
            if row["relation"] == "wrote":
                message = (
                    f"{row['job']} read {ids[this]} and wrote {row['id']}, named like {ids[other]}: "
                    "the same table under another name?"
                )
            else:
                message = (
                    f"{row['job']} read {row['id']}, named like {ids[other]}, and wrote {ids[this]}: "
                    "the same table under another name?"
                )
            misses.append({"kind": "similar_name_one_job_away", "via": [row["job"], row["id"]], "message": message})
    return misses
