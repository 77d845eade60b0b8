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
    """The fields one schema version adds, removes and retypes against another, by name; `renamed` reads
    some of the removed and added ones as renames (`_renames`), which stay in `removed` and `added` too."""

    added: list[str]
    removed: list[str]
    retyped: list[str]
    renamed: list[tuple[str, str]]

    def summary(self) -> str:
        """One line for people: renames first, then what else was added, removed and retyped."""
        old_names, new_names = {old for old, _ in self.renamed}, {new for _, new in self.renamed}
        parts = [f"renamed: {', '.join(f'{old} → {new}' for old, new in self.renamed)}"] if self.renamed else []
        parts += [
            f"{label}: {', '.join(names)}"
            for label, names in (
                ("added", [n for n in self.added if n not in new_names]),
                ("removed", [n for n in self.removed if n not in old_names]),
                ("retyped", self.retyped),
            )
            if names
        ]
        return "; ".join(parts)


def schema_change(before: FieldValues, after: FieldValues) -> SchemaChange | None:
    """What changed from `before` to `after` (each its fields' types), or None when nothing did: the same
    fields in the same order, whose types differ at most where one of the two left a type empty."""
    old, new = dict(before), dict(after)
    change = SchemaChange(
        added=[name for name in new if name not in old],
        removed=[name for name in old if name not in new],
        retyped=[name for name in new if name in old and old[name] and new[name] and old[name] != new[name]],
        renamed=_renames(before, after),
    )
    same_fields = [name for name, _ in before] == [name for name, _ in after]
    return None if same_fields and not change.retyped else change


def _renames(before: FieldValues, after: FieldValues) -> list[tuple[str, str]]:
    """(old, new) for each field that left and one that arrived in the same position with the same known
    type, the other fields keeping their places around it: how a rename (`withColumnRenamed`, `ALTER
    TABLE … RENAME COLUMN`) looks in two schema facets, which do not say so themselves. Only when both
    versions have as many fields: where the counts differ, columns went or came, and places say nothing."""
    if len(before) != len(after):
        return []
    old_names, new_names = {name for name, _ in before}, {name for name, _ in after}
    return [
        (old, new)
        for (old, old_type), (new, new_type) in zip(before, after, strict=True)
        if old != new and old not in new_names and new not in old_names and old_type and old_type == new_type
    ]
