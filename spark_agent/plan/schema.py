"""Spark JSON data types as OpenLineage schema-facet fields."""

from __future__ import annotations

from typing import Any


def schema_fields(columns: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    """Schema-facet `fields` for `(name, Spark JSON type)` pairs, in order."""
    return [_field(name, dtype, position) for position, (name, dtype) in enumerate(columns, 1)]


def _field(name: str, dtype: Any, position: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "type": type_string(dtype)}
    if position is not None:
        out["ordinal_position"] = position
    if isinstance(dtype, dict) and dtype.get("type") == "struct":
        out["fields"] = [_field(str(f.get("name")), f.get("type")) for f in dtype.get("fields", [])]
    return out


def type_string(dtype: Any) -> str:
    """Spark's simple type string: `long`, `decimal(10,2)`, `array<string>`, `struct`."""
    if isinstance(dtype, str):
        return dtype
    if not isinstance(dtype, dict):
        return "unknown"
    kind = dtype.get("type")
    if kind == "array":
        return f"array<{type_string(dtype.get('elementType'))}>"
    if kind == "map":
        return f"map<{type_string(dtype.get('keyType'))},{type_string(dtype.get('valueType'))}>"
    if kind == "udt":
        return type_string(dtype.get("sqlType"))
    return str(kind)
