"""A small pipeline for the alerts tests: `ingest_orders` writes bronze/orders (owned by team:ingest),
`validate_orders` reads it and writes silver/orders (team:data-quality), `revenue` reads that and writes
gold/revenue (team:finance-analytics), with column lineage all the way down."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from lineage_app.notify.models import Destination
from lineage_app.ownership.models import Owner
from tests.events import T0, dataset, facet, new_run_id, run_event

NS = "file:///lake"
BRONZE = [("order_id", "bigint"), ("amount", "double"), ("country", "string")]


def bronze(fields: list[tuple[str, str]] = BRONZE) -> dict[str, Any]:
    return dataset(NS, "bronze/orders", fields=fields, owners=["team:ingest"])


def silver() -> dict[str, Any]:
    return dataset(
        NS,
        "silver/orders",
        fields=[("order_id", "bigint"), ("amount_eur", "double")],
        column_lineage={
            "order_id": [(NS, "bronze/orders", "order_id")],
            "amount_eur": [(NS, "bronze/orders", "amount")],
        },
        owners=["team:data-quality"],
    )


def gold() -> dict[str, Any]:
    return dataset(
        NS,
        "gold/revenue",
        fields=[("revenue", "double")],
        column_lineage={"revenue": [(NS, "silver/orders", "amount_eur")]},
        owners=["team:finance-analytics"],
    )


JOBS = {
    "ingest_orders": ([], bronze),
    "validate_orders": ([bronze], silver),
    "revenue": ([silver], gold),
}


def run(
    job: str, *, fail: bool = False, at: datetime = T0, run_id: str | None = None, **outputs: Any
) -> list[dict[str, Any]]:
    """START and an end (COMPLETE, or FAIL with a classified error) of one run of `job`."""
    run_id = run_id or new_run_id()
    inputs, output = JOBS[job]
    ins = [make() for make in inputs]
    outs = [outputs.get("output") or output()]
    error = {
        "errorMessage": facet(
            message="boom",
            programmingLanguage="python",
            stackTrace="Traceback...\nPermissionError: [Errno 13] Permission denied: '/lake/x'",
        )
    }
    return [
        run_event("START", run_id=run_id, job=job, namespace="shop", at=at, inputs=ins, outputs=outs),
        run_event(
            "FAIL" if fail else "COMPLETE",
            run_id=run_id,
            job=job,
            namespace="shop",
            at=at + timedelta(minutes=2),
            inputs=ins,
            outputs=outs,
            run_facets=error if fail else {},
        ),
    ]


def history() -> list[dict[str, Any]]:
    """One good run of each job, so the graph knows the lineage and its owners."""
    return [e for job in JOBS for e in run(job, at=T0 - timedelta(hours=1))]


def routed(*owners: str) -> dict[str, Destination]:
    """A webhook destination per owner, routed (the owners exist once `history` is applied)."""
    from lineage_app.alerts.services import route_create

    found = {}
    for owner in owners:
        Owner.objects.get_or_create(name=owner)
        destination = Destination.objects.create(
            name=f"hook {owner}", kind="webhook", url="http://127.0.0.1:9/hook", secret="s"
        )
        route_create(owner=owner, destination=destination.pk)
        found[owner] = destination
    return found
