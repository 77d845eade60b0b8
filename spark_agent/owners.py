"""Declared owners: `dataset_owners` / `job_owners` rules that give datasets and jobs an `ownership` facet.

A rule maps a glob pattern (`fnmatch`, case-sensitive; `*` also matches `/`) to one or more
owners. A dataset matches by its name or by its symlink (catalog table) name; a job matches by
its name. Every matching rule contributes its owners, in rule order, each owner once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any


@dataclass(frozen=True)
class DeclaredOwner:
    """One owner as the OpenLineage ownership facets spell it: `name` (`team:finance`) and an optional `type`."""

    name: str
    type: str | None = None

    def as_facet_entry(self) -> dict[str, str]:
        return {"name": self.name} if self.type is None else {"name": self.name, "type": self.type}


@dataclass(frozen=True)
class OwnerRules:
    """Pattern -> owners rules, in the order they were given."""

    rules: tuple[tuple[str, tuple[DeclaredOwner, ...]], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.rules)

    def owners_for(self, names: Iterable[str]) -> list[DeclaredOwner]:
        """The owners of whatever is called any of `names` (empty if no rule matches)."""
        candidates = [n for n in names if n]
        found: dict[str, DeclaredOwner] = {}
        for pattern, owners in self.rules:
            if any(fnmatchcase(name, pattern) for name in candidates):
                for owner in owners:
                    found.setdefault(owner.name, owner)
        return list(found.values())


def parse_owner_rules(value: Mapping[str, Any] | str | None) -> OwnerRules:
    """Rules from an `install()` mapping or a `TRIBUTARY_*_OWNERS` string; `ValueError` if malformed.

    Mapping: `{"*/lake/bronze/*": "team:data-platform", "*/gold/*": ["team:finance", {"name":
    "user:ana", "type": "MAINTAINER"}]}`. String: `PATTERN=OWNER[,OWNER…][;PATTERN=OWNER…]`,
    (owner types only through the mapping form).
    """
    if value is None or value == "":
        return OwnerRules()
    if isinstance(value, str):
        return OwnerRules(tuple(_parse_text_rule(part) for part in value.split(";") if part.strip()))
    if not isinstance(value, Mapping):
        raise ValueError(f"owners must be a mapping of pattern to owners (got {type(value).__name__})")
    return OwnerRules(tuple((_pattern(p), _owners(p, o)) for p, o in value.items()))


def _pattern(pattern: Any) -> str:
    if not isinstance(pattern, str) or not pattern.strip():
        raise ValueError(f"an owner pattern must be a non-empty string (got {pattern!r})")
    return pattern.strip()


def _owners(pattern: str, value: Any) -> tuple[DeclaredOwner, ...]:
    items = [value] if isinstance(value, (str, Mapping)) else value
    if not isinstance(items, (list, tuple)) or not items:
        raise ValueError(f"pattern {pattern!r}: owners must be a name, a list of names, or name/type mappings")
    return tuple(_owner(pattern, item) for item in items)


def _owner(pattern: str, item: Any) -> DeclaredOwner:
    if isinstance(item, str) and item.strip():
        return DeclaredOwner(item.strip())
    if isinstance(item, Mapping) and isinstance(item.get("name"), str) and item["name"].strip():
        kind = item.get("type")
        if kind is not None and not (isinstance(kind, str) and kind.strip()):
            raise ValueError(f"pattern {pattern!r}: owner type must be a non-empty string (got {kind!r})")
        return DeclaredOwner(item["name"].strip(), kind.strip() if kind else None)
    raise ValueError(f"pattern {pattern!r}: {item!r} is not an owner (a name, or a mapping with a name)")


def _parse_text_rule(text: str) -> tuple[str, tuple[DeclaredOwner, ...]]:
    pattern, sep, owners = text.partition("=")
    if not sep or not pattern.strip():
        raise ValueError(f"{text.strip()!r} is not PATTERN=OWNER[,OWNER…]")
    parsed = []
    for name in owners.split(","):
        if not name.strip():
            raise ValueError(f"{text.strip()!r}: an owner name is empty")
        parsed.append(DeclaredOwner(name.strip()))
    return pattern.strip(), tuple(parsed)
