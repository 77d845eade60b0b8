"""The steps of a Neo4j plan (`EXPLAIN` or `PROFILE`), for tests that check which operators a statement uses."""

from __future__ import annotations

from typing import Any


def plan_operators(plan: Any) -> list[tuple[str, str]]:
    """The operator of every step of `plan` (Neo4j names them `Operator@database`), with its details, top down."""
    step = (plan["operatorType"].split("@")[0], str(plan.get("args", {}).get("Details", "")))
    return [step] + [op for child in plan.get("children", []) for op in plan_operators(child)]
