"""What a dataset's schema versions say of each field, and what changed between two versions.

A producer that does not know a field's type (dbt before `dbt docs generate`) or description sends it
empty: an empty value is unknown, not a new value. So a field is what its newest version that knew it
said, and a type filled in where another version left it empty is no schema change (no drift).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# A version's fields as (name, value) pairs in schema order: their types, or their descriptions.
FieldValues = Sequence[tuple[str, str]]


def fields_known(versions: Iterable[Iterable[tuple[str, str]]]) -> dict[str, str]:
    """Each field's newest known value over `versions` (oldest sighting first): the newest non-empty one,
    else "" (no version knew it)."""
    known: dict[str, str] = {}
    for version in versions:
        for name, value in version:
            if value or name not in known:
                known[name] = value
    return known


def field_descriptions(versions: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Each field's description over a dataset's schema `versions` (each with `fieldNames`, `fieldDescriptions` and
    `lastKey`, its newest sighting): the newest non-empty one a version sent, else ""."""
    by_sighting = sorted(versions, key=lambda v: v["lastKey"] or "")
    # A version written before descriptions were kept has none.
    return fields_known(zip(v["fieldNames"] or [], v["fieldDescriptions"] or [], strict=False) for v in by_sighting)


@dataclass(frozen=True, slots=True)
class SchemaChange:
    """The fields one schema version adds, removes and retypes against another, by name."""

    added: list[str]
    removed: list[str]
    retyped: list[str]


def schema_change(before: FieldValues, after: FieldValues) -> SchemaChange | None:
    """What changed from `before` to `after` (each its fields' types), or None when nothing did: the same
    fields in the same order, whose types differ at most where one of the two left a type empty."""
    old, new = dict(before), dict(after)
    change = SchemaChange(
        added=[name for name in new if name not in old],
        removed=[name for name in old if name not in new],
        retyped=[name for name in new if name in old and old[name] and new[name] and old[name] != new[name]],
    )
    same_fields = [name for name, _ in before] == [name for name, _ in after]
    return None if same_fields and not change.retyped else change
