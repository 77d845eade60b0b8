"""Cypher for big neighbourhoods: a hub's neighbours counted by namespace, and listed a page at a time by key."""

from __future__ import annotations

from lineage_app.graph.model import FAILED_STATES, Label, key_seek
from lineage_app.graph.reads import HOP_STEPS, WINDOWS, hop_filter


def _pattern(direction: str, start: Label) -> str:
    """The hop from hub `a` to neighbour `b` over edge `e`, `direction`-wards."""
    rel, end = HOP_STEPS[(direction, start)]
    return f"(a)-[e:{rel}]->(b:{end})" if direction == "downstream" else f"(a)<-[e:{rel}]-(b:{end})"


def _groups(direction: str, start: Label, at: bool, stale: bool, inferred: bool) -> str:
    """Per hub named by element id in `$ids`: its neighbours one hop `direction`-wards, counted per namespace,
    with how many of them have a failed or aborted latest run, as [hub key, namespace, members, failing]."""
    rel, _ = HOP_STEPS[(direction, start)]
    failed = "[" + ", ".join(f"'{state}'" for state in FAILED_STATES) + "]"
    return (
        f"UNWIND $ids AS i MATCH (a:{start}) WHERE elementId(a) = i "
        f"MATCH {_pattern(direction, start)} {hop_filter('e', rel, at, stale, inferred)}"
        f"WITH a.key AS hub, b.namespace AS namespace, count(b) AS members, "
        f"sum(CASE WHEN b.latestRunState IN {failed} THEN 1 ELSE 0 END) AS failing "
        "RETURN collect([hub, namespace, members, failing]) AS groups"
    )


def _page(direction: str, start: Label, at: bool, stale: bool, inferred: bool) -> str:
    """The keys of hub `$key`'s neighbours one hop `direction`-wards after `$after` in key order, at most
    `$limit`; only those in `$namespace` unless it is null, and whose name contains `$q` (lower case) unless null."""
    rel, _ = HOP_STEPS[(direction, start)]
    held = hop_filter("e", rel, at, stale, inferred)
    return (
        f"MATCH (a:{start} {{key: $key}}) {key_seek('a', start, 'key')} "
        f"MATCH {_pattern(direction, start)} {held}{'AND' if held else 'WHERE'} "
        "b.key > $after AND ($namespace IS NULL OR b.namespace = $namespace) "
        "AND ($q IS NULL OR toLower(b.name) CONTAINS $q) "
        "RETURN b.key AS key ORDER BY key LIMIT $limit"
    )


# Keyed by (direction, hub label, `reads.window(moment)`'s first three: whether at an instant, with stale
# edges, with inferred inputs).
NEIGHBOUR_GROUPS: dict[tuple[str, Label, tuple[bool, bool, bool]], str] = {
    (direction, start, window[:3]): _groups(direction, start, *window[:3])
    for direction, start in HOP_STEPS
    if start is not Label.FIELD
    for window in WINDOWS
    if window[3]
}
NEIGHBOUR_PAGES: dict[tuple[str, Label, tuple[bool, bool, bool]], str] = {
    (direction, start, window[:3]): _page(direction, start, *window[:3])
    for direction, start in HOP_STEPS
    if start is not Label.FIELD
    for window in WINDOWS
    if window[3]
}
