"""Whether the graph's runs are what their logged events fold to: a sampled check, its record, a repair."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lineage_app.graph.traversal import runs_properties
from lineage_app.ingest.models import GraphCheck, LineageEvent
from lineage_app.ingest.services import FOLDABLE, run_folds, runs_settle

# Differences a check keeps for the record (all are counted).
DIFFERENCES_KEPT = 20


@dataclass(frozen=True, kw_only=True)
class Difference:
    run_id: str
    property: str
    graph: Any
    log: Any

    def as_dict(self) -> dict[str, Any]:
        return {"runId": self.run_id, "property": self.property, "graph": self.graph, "log": self.log}


def runs_check(*, sample: int, repair: bool = False) -> GraphCheck:
    """Compare the `sample` most recently applied runs' nodes with the fold of their applied events,
    record the outcome (what `/metrics` reports) and, with `repair`, settle every run that differs.

    Runs a worker has not settled yet (`fold_pending`) are left out: they are expected to differ for
    a moment, and the sweeper owns them.
    """
    recent = (
        LineageEvent.objects.filter(status__in=FOLDABLE)
        .exclude(run_id="")
        .order_by("-applied_at", "-id")
        .values_list("run_id", flat=True)
    )
    run_ids: list[str] = []
    for run_id in recent.iterator(chunk_size=1000):
        if run_id not in run_ids:
            run_ids.append(run_id)
            if len(run_ids) == sample:
                break
    unsettled = set(LineageEvent.objects.filter(run_id__in=run_ids, fold_pending=True).values_list("run_id", flat=True))
    checked = [run_id for run_id in run_ids if run_id not in unsettled]
    differences = runs_differences(run_ids=checked)
    differing = sorted({d.run_id for d in differences})
    repaired = runs_settle(run_ids=differing) if repair else 0
    return GraphCheck.objects.create(
        runs_checked=len(checked),
        runs_differing=len(differing),
        runs_repaired=repaired,
        differences=[d.as_dict() for d in differences[:DIFFERENCES_KEPT]],
    )


def runs_differences(*, run_ids: list[str]) -> list[Difference]:
    """Every property in which a run's node differs from the fold of its applied events."""
    folds = run_folds(run_ids=run_ids)
    nodes = runs_properties(run_ids=list(folds))
    differences = []
    for run_id, fold in folds.items():
        node = nodes.get(run_id)
        if node is None:
            differences.append(Difference(run_id=run_id, property="(node)", graph=None, log="a run"))
            continue
        for name, value in fold.node_properties().items():
            if node.get(name) != value:
                differences.append(Difference(run_id=run_id, property=name, graph=node.get(name), log=value))
    return differences
