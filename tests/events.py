"""Builders for OpenLineage events used across the tests (valid against the 2-0-2 schema)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

PRODUCER = "https://example.com/tests/tributary"
SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
T0 = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)


def facet(**fields: Any) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/X.json", **fields}


def dataset(
    namespace: str,
    name: str,
    *,
    fields: list[tuple[str, str]] | None = None,
    column_lineage: dict[str, list[tuple[str, str, str]]] | None = None,
    owners: list[str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    facets: dict[str, Any] = {}
    if fields is not None:
        facets["schema"] = facet(fields=[{"name": n, "type": t} for n, t in fields])
    if column_lineage is not None:
        facets["columnLineage"] = facet(
            fields={
                out: {
                    "inputFields": [
                        {
                            "namespace": ns,
                            "name": ds,
                            "field": f,
                            "transformations": [{"type": "DIRECT", "subtype": "IDENTITY"}],
                        }
                        for ns, ds, f in sources
                    ]
                }
                for out, sources in column_lineage.items()
            }
        )
    if owners:
        facets["ownership"] = facet(owners=[{"name": o, "type": "MAINTAINER"} for o in owners])
    return {"namespace": namespace, "name": name, "facets": facets, **extra}


def run_event(
    event_type: str,
    *,
    run_id: str,
    job: str = "etl.daily",
    namespace: str = "spark",
    at: datetime = T0,
    inputs: list[dict[str, Any]] | None = None,
    outputs: list[dict[str, Any]] | None = None,
    run_facets: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "eventType": event_type,
        "eventTime": at.isoformat().replace("+00:00", "Z"),
        "producer": PRODUCER,
        "schemaURL": SCHEMA_URL,
        "run": {"runId": run_id, "facets": run_facets or {}},
        "job": {"namespace": namespace, "name": job, "facets": {}},
        "inputs": inputs or [],
        "outputs": outputs or [],
    }


def new_run_id() -> str:
    return str(uuid.uuid4())


def run_lifecycle(*, run_id: str | None = None, minutes: int = 5, fail: bool = False) -> list[dict[str, Any]]:
    """START, RUNNING and an end event of one run reading `raw.orders` and writing `clean.orders`."""
    run_id = run_id or new_run_id()
    source = dataset("file:///data", "raw/orders", fields=[("id", "bigint"), ("amount", "double")])
    target = dataset(
        "file:///data",
        "clean/orders",
        fields=[("id", "bigint"), ("amount_eur", "double")],
        column_lineage={
            "id": [("file:///data", "raw/orders", "id")],
            "amount_eur": [("file:///data", "raw/orders", "amount")],
        },
    )
    end_facets = (
        {
            "errorMessage": facet(
                message="boom", programmingLanguage="python", stackTrace="Traceback...\nValueError: boom"
            )
        }
        if fail
        else {}
    )
    return [
        run_event("START", run_id=run_id, at=T0, inputs=[source], outputs=[target]),
        run_event("RUNNING", run_id=run_id, at=T0 + timedelta(minutes=1), inputs=[source]),
        run_event(
            "FAIL" if fail else "COMPLETE",
            run_id=run_id,
            at=T0 + timedelta(minutes=minutes),
            inputs=[source],
            outputs=[target],
            run_facets=end_facets,
        ),
    ]


def tags(*pairs: tuple[str, str], source: str = "DBT") -> dict[str, Any]:
    """A `tags` facet (TagsJobFacet / TagsDatasetFacet / TagsRunFacet): `{key, value, source}` each."""
    return facet(tags=[{"key": key, "value": value, "source": source} for key, value in pairs])


def dbt_run(run_id: str, *, model: str, at_minutes: int = 0) -> list[dict[str, Any]]:
    """A dbt model's run, as dbt-ol sends it: tags on the job, the run and the dataset, owners, a documented schema."""
    orders = dataset("postgres://db:5432", model, owners=["team:analytics"])
    orders["facets"]["schema"] = facet(
        fields=[
            {"name": "order_id", "type": "bigint", "description": "The order's key, from the shop"},
            {
                "name": "customer",
                "type": "struct",
                "fields": [{"name": "email", "type": "string", "description": "PII"}],
            },
            {"name": "amount", "type": "decimal(10,2)"},
        ]
    )
    orders["facets"]["tags"] = tags(("pii", "true"), ("tier", "gold"))
    events = []
    for event_type, minutes in (("START", at_minutes), ("COMPLETE", at_minutes + 2)):
        event = run_event(
            event_type,
            run_id=run_id,
            namespace="dbt",
            job=model,
            at=T0.replace(minute=minutes),
            outputs=[orders],
            run_facets={"tags": tags(("environment", "production"), source="USER")},
        )
        event["job"]["facets"] = {"tags": tags(("domain", "finance"))}
        events.append(event)
    return events
