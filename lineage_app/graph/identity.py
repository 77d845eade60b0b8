"""Dataset identity (invariant 9): pure name normalisation, site namespace rules, and the canonical rule.

Two steps turn a dataset name as an event spells it into the dataset it means:

1. `identity_normalise` — pure and deterministic: `s3a://` and `s3n://` are `s3://`, a trailing
   '/' is dropped, the `file:` URI forms become namespace `file` with an absolute path, and the
   site's `NAMESPACE_ALIASES` rules rename whole namespaces.
2. Symlinks (`symlinks` dataset facet): names linked by a symlink, or normalising to the same
   identity, are one dataset. Its canonical name is the least member under `canonical_order`:
   a physical location (a storage scheme such as `s3`, `hdfs`, `file`) before any other name
   (a catalog name such as `hive://…` / a TABLE identifier), then by namespace, then by name.
   The rule looks only at the names, never at who said them or when, so the canonical name of a
   set of linked names does not depend on arrival order.
3. A `hierarchy` facet (with the `catalog` facet's `metadataUri` saying which catalog) declares the
   table's name in its catalog: `declared_identifier`. It is linked like a symlink, so every producer
   that declares the same table joins one dataset, however it spelled the name; a hierarchy that
   contradicts a catalog name the event gives the dataset is not used (`hierarchy_conflict`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from django.conf import settings

from lineage_app.graph.model import natural_key

SCHEME_ALIASES = {"s3a": "s3", "s3n": "s3"}
# Namespaces that are storage locations: their names win over catalog names.
PHYSICAL_SCHEMES = frozenset(
    {
        "s3",
        "gs",
        "gcs",
        "abfs",
        "abfss",
        "wasb",
        "wasbs",
        "adl",
        "hdfs",
        "viewfs",
        "maprfs",
        "file",
        "dbfs",
        "oss",
        "cos",
        "obs",
        "r2",
    }
)
_FILE_ROOTS = frozenset({"file", "file:", "file:/", "file://", "file:///"})

Identity = tuple[str, str]


def _scheme(text: str) -> tuple[str, str] | None:
    """(`scheme`, rest) of `scheme://rest`, or None when `text` is not such a URI."""
    scheme, sep, rest = text.partition("://")
    if not sep or not scheme or not scheme.replace("+", "").replace("-", "").replace(".", "").isalnum():
        return None
    return scheme, rest


def _uri(text: str) -> str:
    """`text` with a lower-case scheme, `s3a`/`s3n` as `s3` and no trailing '/' (a URI), else unchanged."""
    parts = _scheme(text)
    if parts is None:
        return text
    scheme = parts[0].lower()
    rest = parts[1].rstrip("/")
    return f"{SCHEME_ALIASES.get(scheme, scheme)}://{rest}"


def _file_path(uri: str) -> str | None:
    """The absolute path of `file:///x`, `file://localhost/x` or `file:/x`, or None if not a file URI."""
    if uri[:5].lower() != "file:":
        return None
    rest = uri[5:]
    if rest.startswith("//localhost/"):
        rest = rest[len("//localhost") :]
    path = "/" + rest.lstrip("/")
    return path.rstrip("/") or "/"


def _site_rules() -> dict[str, str]:
    """`NAMESPACE_ALIASES`, normalised: read at every call (tests and reloads change the setting), normalised
    once per distinct setting (about 14 names an event are normalised on apply); callers only read the mapping."""
    rules = getattr(settings, "NAMESPACE_ALIASES", {}) or {}
    return _site_rules_normalised(tuple(rules.items()))


@functools.lru_cache(maxsize=8)
def _site_rules_normalised(rules: tuple[tuple[str, str], ...]) -> dict[str, str]:
    return {_uri(source): _uri(target) for source, target in rules}


def identity_normalise(namespace: str, name: str) -> Identity:
    """The normalised (namespace, name) of a dataset name as spelled by an event (pure, idempotent)."""
    path = _file_path(name) if namespace in _FILE_ROOTS or namespace == "" else None
    if path is not None:
        return "file", path
    if namespace in _FILE_ROOTS:
        stripped = name.rstrip("/")
        return "file", stripped if stripped.startswith("/") else "/" + stripped
    namespace = _uri(namespace)
    namespace = _site_rules().get(namespace, namespace)
    if len(name) > 1:
        name = _uri(name) if _scheme(name) else name.rstrip("/") or name
    return namespace, name


def is_location(namespace: str) -> bool:
    """Whether a normalised namespace is a storage location (its scheme a storage scheme), not a catalog's."""
    parts = _scheme(namespace)
    return (parts[0] if parts else namespace).lower() in PHYSICAL_SCHEMES


def canonical_order(identity: Identity) -> tuple[int, str, str]:
    """The total order that picks a dataset's canonical name: physical locations first, then by text."""
    namespace, name = identity
    return (0 if is_location(namespace) else 1, namespace, name)


def canonical_of(identities: set[Identity]) -> Identity:
    return min(identities, key=canonical_order)


def identity_key(namespace: str, name: str) -> str:
    """The natural key of a normalised identity (the `key` of its Dataset node when canonical)."""
    return natural_key(namespace, name)


RENAMED = "RENAMED"  # the `type` a renamed dataset's former name is linked by
SYMLINK, DECLARED = "symlink", "catalog"  # how a linked name was given: a symlink (or rename), or the catalog facets
# A Hive metastore's URI scheme, and the namespace OpenLineage names its tables in (`hive://host:port`).
METASTORE_SCHEMES = {"thrift": "hive"}


class Link(NamedTuple):
    """Another name of a dataset, as an event gives it: spelled, with how it was given (`kind`) and its type."""

    namespace: str
    name: str
    kind: str
    type: str | None


def linked_identifiers(dataset: dict[str, Any]) -> Iterator[Link]:
    """The other names of a dataset: each identifier in its `symlinks` facet; the former name a
    `lifecycleStateChange` RENAME names (`previousIdentifier`, type `RENAMED`): a renamed dataset is the
    same dataset, so its history follows it (docs/time.md); and the name its `hierarchy` and `catalog`
    facets declare (`declared_identifier`)."""
    facets = dataset.get("facets") or {}
    change = facets.get("lifecycleStateChange")
    if isinstance(change, dict) and change.get("lifecycleStateChange") == "RENAME":
        previous = change.get("previousIdentifier")
        if isinstance(previous, dict):
            namespace, name = previous.get("namespace"), previous.get("name")
            if isinstance(namespace, str) and isinstance(name, str) and name:
                yield Link(namespace, name, SYMLINK, RENAMED)
    yield from _symlinks(facets)
    declared = declared_identifier(dataset)
    if declared is not None:
        yield declared


def _symlinks(facets: dict[str, Any]) -> Iterator[Link]:
    facet = facets.get("symlinks")
    if not isinstance(facet, dict):
        return
    for identifier in facet.get("identifiers") or []:
        if not isinstance(identifier, dict):
            continue
        namespace, name = identifier.get("namespace"), identifier.get("name")
        if isinstance(namespace, str) and isinstance(name, str) and name:
            kind = identifier.get("type")
            yield Link(namespace, name, SYMLINK, kind if isinstance(kind, str) else None)


def _levels(facets: dict[str, Any]) -> list[tuple[str, str]] | None:
    """The `hierarchy` facet's (type, name) levels, outermost first; None without a list of them as the spec
    has them (a facet failing its schema is left out before this is asked, and warned of)."""
    facet = facets.get("hierarchy")
    levels = facet.get("hierarchy") if isinstance(facet, dict) else None
    if not isinstance(levels, list) or not levels:
        return None
    if not all(isinstance(level, dict) for level in levels):
        return None
    pairs = [(level.get("type"), level.get("name")) for level in levels]
    if not all(isinstance(type_, str) and isinstance(name, str) for type_, name in pairs):
        return None
    return pairs


def catalog_namespace(catalog: object) -> str | None:
    """The namespace a `catalog` facet's catalog names its tables in: its `metadataUri` (of a list of
    URIs, the least, so a metastore's replicas listed in any order agree), a Hive metastore's `thrift://`
    as `hive://` (the OpenLineage naming the Spark integration's symlinks use); None without a URI.
    The catalog's `name` is the engine's local alias for it (`spark_catalog`), not where it is."""
    uri = catalog.get("metadataUri") if isinstance(catalog, dict) else None
    if not isinstance(uri, str):
        return None
    uris = sorted(_uri(part.strip()) for part in uri.split(",") if part.strip())
    if not uris:
        return None
    parts = _scheme(uris[0])
    if parts is not None and parts[0] in METASTORE_SCHEMES:
        return f"{METASTORE_SCHEMES[parts[0]]}://{parts[1]}"
    return uris[0]


def _segments(text: str) -> list[str]:
    """A table name's parts, split at '.' and '/' (`db.t`, `table/db/t`), compared without case."""
    return [part for part in re.split(r"[./]", text.casefold()) if part]


def _one_ends_the_other(a: list[str], b: list[str]) -> bool:
    """Whether the shorter of two names' parts is the tail of the longer (`spark_catalog.db.t` and `db.t`)."""
    shorter, longer = sorted((a, b), key=len)
    return bool(shorter) and longer[len(longer) - len(shorter) :] == shorter


def hierarchy_conflict(dataset: dict[str, Any]) -> str | None:
    """Why a dataset's `hierarchy` facet cannot say which table it is, or None: a level with an empty name,
    or a catalog name the event gives the dataset (its own name or a symlink's, but not a storage
    location, whose path need not spell the table) that does not end with the levels' names (nor they
    with it: a name may leave out the outer levels, or add the engine's alias for the catalog). The
    name wins: such a hierarchy is left out of the graph and warned of (docs/identity.md)."""
    facets = dataset.get("facets")
    if not isinstance(facets, dict):
        return None
    levels = _levels(facets)
    return None if levels is None else _levels_conflict(dataset, facets, levels)


def _levels_conflict(dataset: dict[str, Any], facets: dict[str, Any], levels: list[tuple[str, str]]) -> str | None:
    """`hierarchy_conflict` for a dataset whose hierarchy's `levels` are read already."""
    if any(not name.strip() for _, name in levels):
        return "hierarchy: a level has an empty name"
    declared = ".".join(level for _, level in levels)
    spelled = [(dataset.get("namespace"), dataset.get("name"))]
    spelled += [(link.namespace, link.name) for link in _symlinks(facets)]
    for namespace, name in spelled:
        if not isinstance(namespace, str) or not isinstance(name, str):
            continue
        normal_namespace, normal_name = identity_normalise(namespace, name)
        if not is_location(normal_namespace) and not _one_ends_the_other(_segments(normal_name), _segments(declared)):
            return (
                f"hierarchy names the table {declared!r}, but the event names the dataset {name!r} in "
                f"{namespace!r}: the name wins, the hierarchy is left out"
            )
    return None


def declared_identifier(dataset: dict[str, Any]) -> Link | None:
    """The name a dataset's `hierarchy` facet declares in its catalog: (the `catalog` facet's namespace,
    or else the dataset's own namespace when that is a catalog's, not a storage location; the levels'
    names joined by '.'), typed by the innermost level's type. None without levels, without a catalog
    namespace, or when `hierarchy_conflict`."""
    facets = dataset.get("facets") or {}
    levels = _levels(facets)
    if levels is None or _levels_conflict(dataset, facets, levels) is not None:
        return None
    namespace = catalog_namespace(facets.get("catalog"))
    if namespace is None:
        spelled = identity_normalise(dataset["namespace"], dataset["name"])[0]
        if is_location(spelled):
            return None
        namespace = dataset["namespace"]
    return Link(namespace, ".".join(name for _, name in levels), DECLARED, levels[-1][0])
