"""Hand-set ownership in the graph, and the effective-owner rule: manual, else event, else the namespace's."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from neo4j import ManagedTransaction

from lineage_app.graph import lookups, reads, writes
from lineage_app.graph.driver import graph_read, records, statement_run
from lineage_app.graph.model import Label, NodeRef, OwnershipSource
from lineage_app.graph.node_ids import node_namespace

_MERGE = {
    Label.NAMESPACE: writes.MERGE_MANUAL_NAMESPACE_OWNERS,
    Label.DATASET: writes.MERGE_MANUAL_DATASET_OWNERS,
    Label.JOB: writes.MERGE_MANUAL_JOB_OWNERS,
}
_DELETE = {
    Label.NAMESPACE: writes.DELETE_MANUAL_NAMESPACE_OWNERS,
    Label.DATASET: writes.DELETE_MANUAL_DATASET_OWNERS,
    Label.JOB: writes.DELETE_MANUAL_JOB_OWNERS,
}


def _owner(row: dict[str, Any], *, inherited: bool) -> dict[str, Any]:
    return {
        "name": row["name"],
        "kind": row["kind"],
        "contact": row["contact"] or "",
        "role": row["role"],
        "source": row["source"],
        "inherited": inherited,
    }


def _own(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An asset's own owners: the hand-set ones if there are any, else those from events (search applies the same
    rule in Cypher, `reads._effective_owned_by`)."""
    manual = [row for row in rows if row["source"] == OwnershipSource.MANUAL]
    chosen = manual or [row for row in rows if row["source"] != OwnershipSource.MANUAL]
    return sorted(chosen, key=lambda row: (row["role"], row["name"]))


def owners_for(tx: ManagedTransaction, *, refs: list[NodeRef]) -> dict[NodeRef, list[dict]]:
    """The effective owners of each of `refs`, one statement per label for all of them.

    An asset's hand-set assignments if it has any; else its event-sourced ones; and if it has
    neither, its namespace's (chosen the same way), marked `inherited`. Every ref is in the
    answer, with an empty list when nobody owns it.
    """
    refs = list(dict.fromkeys((Label(label), key) for label, key in refs))
    if not refs:
        return {}
    wanted: dict[Label, set[str]] = defaultdict(set)
    for label, key in refs:
        wanted[label].add(key)
        wanted[Label.NAMESPACE].add(node_namespace((label, key)))
    found: dict[NodeRef, list[dict[str, Any]]] = defaultdict(list)
    for label, keys in sorted(wanted.items()):
        for row in records(tx, lookups.READ_OWNERS[label], keys=sorted(keys))[0]["rows"]:
            found[(label, row.pop("key"))].append(row)
    result: dict[NodeRef, list[dict]] = {}
    for label, key in refs:
        own = _own(found.get((label, key), []))
        if own or label == Label.NAMESPACE:
            result[(label, key)] = [_owner(row, inherited=False) for row in own]
        else:
            parent = _own(found.get((Label.NAMESPACE, node_namespace((label, key))), []))
            result[(label, key)] = [_owner(row, inherited=True) for row in parent]
    return result


def owned_search_rows(*, q: str, labels: list[Label], limit: int) -> list[dict[str, Any]]:
    """Up to `limit` datasets and jobs of each of `labels` that an owner whose name contains `q` effectively owns
    (`owners_for`'s rule, applied by the statement before its limit: `reads.SEARCH_OWNED`), best first, each once
    with its best-matching owner (`owner`) and that owner's rank (exact name, prefix, substring)."""

    def work(tx: ManagedTransaction) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for label in labels:
            if label in reads.SEARCH_OWNED:
                rows = records(tx, reads.SEARCH_OWNED[label], q=q.lower(), limit=limit)
                found.extend({**row, "label": label} for row in rows)
        return found

    return graph_read(work)


def manual_owners_merge(tx: ManagedTransaction, *, rows: Iterable[dict[str, Any]]) -> None:
    """MERGE the `source:'manual'` edges of `rows` (`label`, `targetKey`, `owner`, `kind`, `contact`, `role`)."""
    _by_label(tx, _MERGE, rows)


def manual_owners_delete(tx: ManagedTransaction, *, rows: Iterable[dict[str, Any]]) -> None:
    """Delete the `source:'manual'` edges of `rows` (`label`, `targetKey`, `owner`, `role`)."""
    _by_label(tx, _DELETE, rows)


def manual_owners_delete_all(tx: ManagedTransaction) -> None:
    """Delete every `source:'manual'` edge (before mirroring them all again)."""
    tx.run(writes.DELETE_ALL_MANUAL_OWNERS).consume()


def owner_contacts_set(tx: ManagedTransaction, *, rows: Iterable[dict[str, Any]]) -> None:
    """Refresh the `kind` and `contact` of existing Owner nodes (`owner`, `kind`, `contact`)."""
    rows = list(rows)
    if rows:
        statement_run(tx, writes.SET_OWNER_CONTACTS, rows=rows).consume()


def _by_label(tx: ManagedTransaction, statements: dict[Label, str], rows: Iterable[dict[str, Any]]) -> None:
    grouped: dict[Label, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        grouped[Label(row["label"])].append({k: v for k, v in row.items() if k != "label"})
    for label, group in grouped.items():
        statement_run(tx, statements[label], rows=group).consume()
