"""What part of a dataset a run read or wrote, from its `subset` input or output facet (BaseSubsetDatasetFacet)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Conditions nested deeper than this are told as "…" (a producer's condition is a tree of `binary` nodes).
MAX_DEPTH = 8


def subset_text(dataset: Mapping[str, Any], side: str) -> str | None:
    """The part of `dataset` its `subset` facet says the run read (`side` "inputs": `inputCondition`) or wrote
    ("outputs": `outputCondition`), as one line: `date=2026-11-24` for a partition (several joined by ", ",
    a partition's dimensions by "/"), the locations, or the condition (`region = 'eu' AND day >= '2026-11-01'`);
    None when it sent none (the whole dataset)."""
    facets = dataset.get("inputFacets" if side == "inputs" else "outputFacets") or {}
    subset = facets.get("subset")
    if not isinstance(subset, dict):
        return None
    condition = subset.get("inputCondition" if side == "inputs" else "outputCondition")
    return _condition(condition, 0) if isinstance(condition, dict) else None


def _condition(condition: Mapping[str, Any], depth: int) -> str:
    if depth > MAX_DEPTH:
        return "…"
    kind = condition.get("type")
    if kind == "partition":
        return ", ".join(_partition(p) for p in condition.get("partitions") or [] if isinstance(p, dict))
    if kind == "location":
        return ", ".join(str(location) for location in condition.get("locations") or [])
    if kind == "binary":
        sides = [condition.get("left"), condition.get("right")]
        told = [f"({_condition(s, depth + 1)})" if isinstance(s, dict) else "?" for s in sides]
        return f" {condition.get('operator', '?')} ".join(told)
    if kind == "compare":
        return (
            f"{_operand(condition.get('left'))} {_COMPARISONS.get(str(condition.get('comparison')), '?')} "
            + _operand(condition.get("right"))
        )
    return "?"


_COMPARISONS = {
    "EQUAL": "=",
    "GREATER_THAN": ">",
    "GREATER_EQUAL_THAN": ">=",
    "LESS_THAN": "<",
    "LESS_EQUAL_THAN": "<=",
}


def _partition(partition: Mapping[str, Any]) -> str:
    dimensions = partition.get("dimensions")
    if isinstance(dimensions, dict) and dimensions:
        return "/".join(f"{name}={value}" for name, value in dimensions.items())
    return str(partition.get("identifier") or "?")


def _operand(operand: Any) -> str:
    if not isinstance(operand, dict):
        return "?"
    if operand.get("type") == "field":
        return str(operand.get("field"))
    return repr(str(operand.get("value")))
