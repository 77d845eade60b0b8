"""Big neighbourhoods summarised: a hub's neighbours in one hop as clusters (`Cluster`), counted by the engine."""

from __future__ import annotations

from dataclasses import dataclass

from neo4j import ManagedTransaction

from lineage_app.graph.driver import records
from lineage_app.graph.model import Label, Moment, NodeRef
from lineage_app.graph.neighbour_queries import NEIGHBOUR_GROUPS, NEIGHBOUR_PAGES
from lineage_app.graph.reads import HOP_STEPS, window

# A hub with more namespaces among its neighbours than this gets one cluster for all of them, so a hub's
# clusters stay few whatever its neighbours are.
MAX_GROUPS = 8


@dataclass(frozen=True, slots=True)
class Cluster:
    """A hub's neighbours one hop `direction`-wards in `namespace` (None: in every namespace), left out of a
    lineage answer and counted instead: `members` of them, `failing` with a failed or aborted latest run.
    `drawn_on` is the node the answer draws the hub as (its application, when action jobs are rolled up)."""

    hub: NodeRef
    direction: str
    label: Label
    namespace: str | None
    members: int
    failing: int
    drawn_on: NodeRef | None = None


def neighbour_clusters(
    tx: ManagedTransaction, *, label: Label, hubs: dict[str, str], direction: str, moment: Moment
) -> list[Cluster]:
    """The clusters of the `label` hubs in `hubs` (key -> element id), `direction`-wards over the edges `moment`
    names: one per namespace, or one for all when a hub's neighbours span more than `MAX_GROUPS` namespaces.
    Ordered by hub key, then namespace."""
    statement = NEIGHBOUR_GROUPS[(direction, label, window(moment)[:3])]
    end = HOP_STEPS[(direction, label)][1]
    by_hub: dict[str, list[tuple[str, int, int]]] = {}
    for hub, namespace, members, failing in records(tx, statement, ids=sorted(hubs.values()), at=moment.at)[0][
        "groups"
    ]:
        by_hub.setdefault(hub, []).append((namespace, members, failing))
    clusters: list[Cluster] = []
    for hub, groups in sorted(by_hub.items()):
        if len(groups) > MAX_GROUPS:
            total, failing = sum(group[1] for group in groups), sum(group[2] for group in groups)
            clusters.append(Cluster((label, hub), direction, end, None, total, failing))
            continue
        clusters.extend(
            Cluster((label, hub), direction, end, namespace, members, failing)
            for namespace, members, failing in sorted(groups, key=lambda group: group[0] or "")
        )
    return clusters


def neighbour_keys(
    tx: ManagedTransaction,
    *,
    hub: NodeRef,
    direction: str,
    moment: Moment,
    namespace: str | None,
    q: str | None,
    after: str,
    limit: int,
) -> tuple[Label, list[str]]:
    """The label and keys of `hub`'s neighbours one hop `direction`-wards over the edges `moment` names, in key
    order after `after`, at most `limit`; only those in `namespace` and whose name contains `q` (any case),
    unless None. Keyset paging: a neighbour added meanwhile is listed once if it sorts after `after`, else not."""
    statement = NEIGHBOUR_PAGES[(direction, hub[0], window(moment)[:3])]
    rows = records(
        tx,
        statement,
        key=hub[1],
        after=after,
        limit=limit,
        namespace=namespace,
        q=q.lower() if q else None,
        at=moment.at,
    )
    return HOP_STEPS[(direction, hub[0])][1], [row["key"] for row in rows]
