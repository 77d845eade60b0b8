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
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

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
    rules = getattr(settings, "NAMESPACE_ALIASES", {}) or {}
    return {_uri(source): _uri(target) for source, target in rules.items()}


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


def canonical_order(identity: Identity) -> tuple[int, str, str]:
    """The total order that picks a dataset's canonical name: physical locations first, then by text."""
    namespace, name = identity
    parts = _scheme(namespace)
    scheme = (parts[0] if parts else namespace).lower()
    return (0 if scheme in PHYSICAL_SCHEMES else 1, namespace, name)


def canonical_of(identities: set[Identity]) -> Identity:
    return min(identities, key=canonical_order)


def identity_key(namespace: str, name: str) -> str:
    """The natural key of a normalised identity (the `key` of its Dataset node when canonical)."""
    return natural_key(namespace, name)


RENAMED = "RENAMED"  # the `type` a renamed dataset's former name is linked by


def linked_identifiers(dataset: dict[str, Any]) -> Iterator[tuple[str, str, str | None]]:
    """The other names of a dataset, as (namespace, name, type) as spelled: each identifier in its
    `symlinks` facet, and the former name a `lifecycleStateChange` RENAME names (`previousIdentifier`,
    type `RENAMED`): a renamed dataset is the same dataset, so its history follows it (docs/time.md)."""
    facets = dataset.get("facets") or {}
    change = facets.get("lifecycleStateChange")
    if isinstance(change, dict) and change.get("lifecycleStateChange") == "RENAME":
        previous = change.get("previousIdentifier")
        if isinstance(previous, dict):
            namespace, name = previous.get("namespace"), previous.get("name")
            if isinstance(namespace, str) and isinstance(name, str) and name:
                yield namespace, name, RENAMED
    facet = facets.get("symlinks")
    if not isinstance(facet, dict):
        return
    for identifier in facet.get("identifiers") or []:
        if not isinstance(identifier, dict):
            continue
        namespace, name = identifier.get("namespace"), identifier.get("name")
        if isinstance(namespace, str) and isinstance(name, str) and name:
            kind = identifier.get("type")
            yield namespace, name, kind if isinstance(kind, str) else None
