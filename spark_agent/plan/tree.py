"""Parse Catalyst's `TreeNode.toJSON` output into small Python trees."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Attr:
    """An attribute (column) of a plan's output: its expression id, name and type."""

    expr_id: int
    name: str
    data_type: Any


@dataclass
class Node:
    """One node of a logical plan or of an expression, with its JSON fields."""

    cls: str
    qualified: str
    fields: dict[str, Any]
    children: list[Node] = field(default_factory=list)

    def child_field(self, name: str) -> Node | None:
        """The node held by field `name`: a child index or an embedded tree."""
        value = self.fields.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return self.children[value] if 0 <= value < len(self.children) else None
        if isinstance(value, list) and value and isinstance(value[0], dict):
            return parse(value)
        return None

    def expr(self, name: str) -> Node | None:
        """A single expression field (`Expression` or `Option[Expression]`)."""
        value = self.fields.get(name)
        if isinstance(value, list) and value and isinstance(value[0], dict):
            return parse(value)
        return None

    def exprs(self, name: str) -> list[Node]:
        """A sequence-of-expressions field (`Seq[Expression]`)."""
        value = self.fields.get(name)
        if not isinstance(value, list):
            return []
        return [parse(item) for item in value if isinstance(item, list) and item]

    def attrs(self, name: str) -> list[Attr]:
        """A sequence-of-attributes field, such as a leaf's `output`."""
        return [a for a in (as_attr(e) for e in self.exprs(name)) if a is not None]


def parse(items: list[dict[str, Any]]) -> Node:
    """Rebuild a tree from Spark's flattened pre-order JSON list."""
    node, _ = _parse_at(items, 0)
    return node


def _parse_at(items: list[dict[str, Any]], pos: int) -> tuple[Node, int]:
    raw = items[pos]
    count = int(raw.get("num-children", 0))
    pos += 1
    children: list[Node] = []
    for _ in range(count):
        child, pos = _parse_at(items, pos)
        children.append(child)
    qualified = str(raw.get("class", ""))
    cls = qualified.rsplit(".", 1)[-1]
    return Node(cls=cls, qualified=qualified, fields=raw, children=children), pos


def expr_id(node: Node) -> int | None:
    """The `exprId` of a named expression, if it has one."""
    value = node.fields.get("exprId")
    if isinstance(value, dict) and isinstance(value.get("id"), int):
        return int(value["id"])
    return None


def as_attr(node: Node) -> Attr | None:
    """An `AttributeReference` node as an `Attr`; `None` for other expressions."""
    if node.cls != "AttributeReference":
        return None
    ident = expr_id(node)
    if ident is None:
        return None
    return Attr(expr_id=ident, name=str(node.fields.get("name", "")), data_type=node.fields.get("dataType"))
