"""Impact and root-cause reports: resolve the starts, traverse, then yield asset rows chunk by chunk."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from lineage_app.graph import impact, impact_walk, listings
from lineage_app.graph.model import API_TYPES, KEY_SEPARATOR, LEVELS, NOW, Label, Moment, NodeRef, NodeType, natural_key
from lineage_app.graph.node_ids import NodeNotFound, node_ref_id
from lineage_app.graph.node_resolve import node_resolve
from lineage_app.graph.quality import UNKNOWN

__all__ = ["LEVELS", "ImpactReport", "NodeNotFound", "impact_report", "root_cause_for_node"]

START_KINDS = (NodeType.DATASET, NodeType.JOB, NodeType.DATASET_FIELD)
UNOWNED = "(no owner)"


@dataclass
class ImpactReport:
    """One impact report: its header, a one-shot iterator of asset rows, and a summary filled as they pass.

    `rows()` reads the details of at most `impact.CHUNK` assets at a time; `summary` is complete
    once the rows have been consumed. The walk is held in SQLite (`impact_walk`) until `close()`.
    """

    node_ids: list[str]
    depth: int
    moment: Moment
    generated_at: str
    traversal: impact_walk.ImpactWalk
    level: str = "application"
    total: int = 0
    by_type: Counter[str] = field(default_factory=Counter)
    by_owner: Counter[str] = field(default_factory=Counter)
    by_namespace: Counter[str] = field(default_factory=Counter)
    by_depth: Counter[int] = field(default_factory=Counter)

    def header(self) -> dict[str, Any]:
        return {
            "nodeIds": self.node_ids,
            "depth": self.depth,
            "at": self.moment.at,
            "asOf": self.moment.at,  # deprecated: `at`
            "includeStale": self.moment.stale,
            "level": self.level,
            "generatedAt": self.generated_at,
        }

    def rows(self) -> Iterator[dict[str, Any]]:
        walk = self.traversal
        for chunk in impact.chunks(walk.assets_nearest_first()):
            refs = [asset.ref for asset in chunk]
            details = impact.impact_details(refs=refs)
            quality = listings.dataset_quality_statuses(keys=[key for label, key in refs if label is Label.DATASET])
            # Rolled up, an application job lists the action jobs folded into it.
            actions = walk.actions([key for label, key in refs if label is Label.JOB]) if walk.rolled_up else {}
            for asset in chunk:
                row = self._row(asset, details.get(asset.ref), actions)
                if asset.ref[0] is Label.DATASET:
                    row["quality"] = quality.get(asset.ref[1], UNKNOWN)
                self._count(row)
                yield row

    def close(self) -> None:
        """Free the walk (its SQLite database and temporary file): the response is over, or was never sent."""
        self.traversal.close()

    def _row(
        self, asset: impact_walk.Asset, detail: dict[str, Any] | None, actions: dict[str, list[str]]
    ) -> dict[str, Any]:
        ref, path = asset.ref, asset.path
        detail = detail or {}
        node = ref[1].split(KEY_SEPARATOR)
        row: dict[str, Any] = {
            "id": path[-1],  # a path ends at its asset
            "type": API_TYPES[ref[0]],
            "namespace": detail.get("namespace", node[0]),
            "name": detail.get("name", node[-1]),
        }
        if ref[0] is Label.FIELD:
            row["dataset"] = node_ref_id((Label.DATASET, natural_key(*node[:2])))  # datasets are never rolled up
            row["fieldType"] = detail.get("type")
        elif ref[0] is Label.JOB:
            # Rolled up, an application job lists its action jobs; else an action job names its application.
            row["actions"] = actions.get(ref[1], [])
            row["application"] = asset.application
        row.update(
            {
                "distance": asset.distance,
                "path": path,
                "transformations": asset.transformations,
                "owners": detail.get("owners", []),
                "lastRunState": detail.get("lastRunState"),
                "lastRunTime": detail.get("lastRunTime"),
            }
        )
        return row

    def _count(self, row: dict[str, Any]) -> None:
        self.total += 1
        self.by_type[row["type"]] += 1
        self.by_namespace[row["namespace"]] += 1
        self.by_depth[row["distance"]] += 1
        for name in sorted({owner["name"] for owner in row["owners"]}) or [UNOWNED]:
            self.by_owner[name] += 1

    def summary(self) -> dict[str, Any]:
        return {
            "total": self.total,
            # Stale edges leading on from the assets, whose paths the report left out (`includeStale`).
            "staleLeftOut": self.traversal.stale_left_out,
            "byType": dict(sorted(self.by_type.items())),
            "byOwner": dict(sorted(self.by_owner.items(), key=lambda item: (-item[1], item[0]))),
            "byNamespace": dict(sorted(self.by_namespace.items(), key=lambda item: (-item[1], item[0]))),
            "byDepth": {str(depth): count for depth, count in sorted(self.by_depth.items())},
        }


def impact_report(*, node_ids: list[str], depth: int, moment: Moment = NOW, level: str = "application") -> ImpactReport:
    """Everything downstream of `node_ids` (datasets, jobs or fields) within `depth` hops.

    At `application` level each action job is folded into its application job, which appears
    once and lists its `actions`; at `action` level each action job names its `application`.
    An application job as a start starts from its action jobs too. Only the edges `moment` names are
    followed (current ones by default); the summary counts the stale edges left out. Raises
    `NodeNotFound` before anything is streamed when a start does not exist. The caller closes the
    report (`ImpactReport.close`) once written, or not.
    """
    starts: list[NodeRef] = []
    for node_id in node_ids:
        ref = node_resolve(node_id=node_id, kinds=START_KINDS)
        if ref not in starts:
            starts.append(ref)
    traversal = impact_walk.impact_walk(starts=starts, depth=depth, moment=moment, roll_up=level == "application")
    return ImpactReport(
        node_ids=[node_ref_id(ref) for ref in starts],
        depth=depth,
        moment=moment,
        generated_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        traversal=traversal,
        level=level,
    )


def root_cause_for_node(*, node_id: str, depth: int, moment: Moment = NOW) -> dict[str, Any]:
    """Datasets and jobs upstream of `node_id` (over the edges `moment` names: those current now by
    default), the one with the most recent failure or schema change first.

    Assets with nothing recorded follow, nearest first.
    """
    start = node_resolve(node_id=node_id, kinds=(NodeType.DATASET,))
    traversal = impact.upstream_traverse(start=start, depth=depth, moment=moment)
    assets = traversal.assets()
    events = impact.root_cause_events(refs=assets)
    results: list[dict[str, Any]] = []
    for ref in assets:
        path, _ = traversal.path(ref)
        path.reverse()  # from the culprit down to the dataset in question
        happened = events.get(ref, [])
        results.append(
            {
                "id": node_ref_id(ref),
                "type": API_TYPES[ref[0]],
                "distance": traversal.seen[ref].distance,
                "path": path,
                "lastEventAt": happened[0]["at"] if happened else None,
                "lastEvent": happened[0] if happened else None,
                "events": happened,
            }
        )
    results.sort(key=lambda r: (r["distance"], r["id"]))
    results.sort(key=lambda r: r["lastEventAt"] or "", reverse=True)  # stable: ties stay nearest first
    return {"nodeId": node_ref_id(start), "depth": depth, "results": results}
