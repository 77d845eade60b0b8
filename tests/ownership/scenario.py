"""The lineage the ownership tests start from: `db.load` reads `db.orders`, writes `db.customers` (`team:crm`)."""

from __future__ import annotations

from tests.apply import accept_and_apply
from tests.events import dataset, new_run_id, run_event


def seed() -> None:
    """One completed run of `db.load`; `db.customers`'s ownership facet names `team:crm` (an event-sourced owner)."""
    accept_and_apply(
        run_event(
            "COMPLETE",
            run_id=new_run_id(),
            job="load",
            namespace="db",
            inputs=[dataset("db", "orders")],
            outputs=[dataset("db", "customers", owners=["team:crm"])],
        )
    )
