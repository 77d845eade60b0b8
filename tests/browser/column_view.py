"""What the browser tests read of the column view through the test build's hooks: where every node and label is drawn,
and whether any two overlap or a label is too small to read."""

from __future__ import annotations

from itertools import combinations
from typing import Any

# Under this many pixels on screen a label is not something a person reads at a glance.
READABLE_PX = 9.0

Box = dict[str, float]


def drawn_boxes(page: Any) -> dict[str, Any]:
    """`window.__tributaryGraph.boxes()`: the canvas, every node's box (with its kind) and every drawn label's box."""
    return page.evaluate("window.__tributaryGraph.boxes()")


def overlap(a: Box, b: Box) -> bool:
    """Whether two boxes share more than a pixel's sliver."""
    return min(a["x2"], b["x2"]) - max(a["x1"], b["x1"]) > 1 and min(a["y2"], b["y2"]) - max(a["y1"], b["y1"]) > 1


def inside(inner: Box, outer: Box) -> bool:
    return (
        inner["x1"] >= outer["x1"] - 0.5
        and inner["y1"] >= outer["y1"] - 0.5
        and inner["x2"] <= outer["x2"] + 0.5
        and inner["y2"] <= outer["y2"] + 0.5
    )


def overlapping(named: list[tuple[str, Box]]) -> list[tuple[str, str]]:
    """The pairs of `named` boxes that overlap."""
    return [(a, b) for (a, box_a), (b, box_b) in combinations(named, 2) if overlap(box_a, box_b)]


def assert_column_view_readable(page: Any) -> dict[str, Any]:
    """No two cards, no two rows of the cards (heads and fields) and no two labels overlap (edges carry none), and
    every label is drawn at a readable size; returns what is drawn."""
    boxes = drawn_boxes(page)
    cards = [(n["id"], n["box"]) for n in boxes["nodes"] if n["kind"] == "DATASET_GROUP"]
    rows = [(n["id"], n["box"]) for n in boxes["nodes"] if n["kind"] in ("CARD_HEAD", "DATASET_FIELD")]
    labels = [(label["id"], label["box"]) for label in boxes["labels"]]
    assert not overlapping(cards), f"dataset cards overlap: {overlapping(cards)}"
    assert not overlapping(rows), f"rows overlap: {overlapping(rows)}"
    assert not overlapping(labels), f"labels overlap: {overlapping(labels)}"
    edge_ids = set(page.evaluate("window.__tributaryGraph.edgeIds()"))
    assert not edge_ids & {label_id for label_id, _ in labels}, "an edge is drawn with a label"
    for row_id, _ in rows:
        label = page.evaluate("id => window.__tributaryGraph.nodeLabel(id)", row_id)
        assert label["screenFontPx"] >= READABLE_PX, f"{row_id}'s label is drawn at {label['screenFontPx']:.1f} px"
    return boxes


def traced(page: Any) -> set[str]:
    """The nodes and edges drawn as on the traced path."""
    ids = page.evaluate("() => [...window.__tributaryGraph.nodeIds(), ...window.__tributaryGraph.edgeIds()]")
    classes = page.evaluate("ids => ids.map(id => window.__tributaryGraph.classes(id))", ids)
    return {element for element, drawn in zip(ids, classes, strict=True) if "traced" in drawn}


def field_path(answer: dict[str, Any], field_id: str) -> set[str]:
    """A field's whole path in a column-lineage answer: it, every field upstream and downstream, and their edges
    (`origin->destination`)."""
    edges = {(e["origin"], e["destination"]) for node in answer["graph"] for e in node["inEdges"] + node["outEdges"]}
    path = {field_id}
    for forward in (True, False):
        frontier = [field_id]
        while frontier:
            at = frontier.pop()
            for origin, destination in edges:
                start, end = (origin, destination) if forward else (destination, origin)
                if start == at:
                    path.add(f"{origin}->{destination}")
                    if end not in path:
                        path.add(end)
                        frontier.append(end)
    return path
