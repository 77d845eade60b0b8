"""Events shaped as openlineage-dbt 1.54 (`dbt-ol run`, `dbt-ol test`) sends them for a DuckDB project.

A model's run event names its output table with the facets the integration builds from the manifest
(`dataSource`, `documentation`, `schema` with column descriptions and, without `dbt docs generate`, no
types, `dbt_model`) and its job with `jobType`, `dbt_node` and `sql`; a test event names the tested table
as an input with only `dataQualityAssertions` (in its facets and its input facets). The run facets carry
`dbt_version`, `dbt_run`, `processing_engine` and the `parent` of the `dbt-run-<project>` run.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

NAMESPACE = "duckdb:///srv/dbt/shop.duckdb"
JOB_NAMESPACE = "dbt"
PROJECT = "shop"
PRODUCER = "https://github.com/OpenLineage/OpenLineage/tree/1.54.0/integration/dbt"
SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
_DBT_SCHEMAS = (
    "https://raw.githubusercontent.com/OpenLineage/OpenLineage/main/integration/common/src/openlineage/common/schema/"
)
_SPEC_FACETS = "https://openlineage.io/spec/facets/"

# The columns of `stg_orders` as its schema.yml declares them: (name, description).
COLUMNS = [("order_id", "One row per order"), ("status", "placed, shipped or returned"), ("amount", "In EUR")]
TABLE = f"{PROJECT}.main.stg_orders"


def _facet(schema_url: str, /, **fields: Any) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": schema_url, **fields}


def deleted(schema: str = f"{_SPEC_FACETS}1-0-0/Deleted.json") -> dict[str, Any]:
    """The spec's deletion marker for a facet."""
    return _facet(schema, _deleted=True)


def _time(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


def _run_facets(invocation: str, parent_run: str, command: str) -> dict[str, Any]:
    return {
        "dbt_version": _facet(_DBT_SCHEMAS + "dbt-version-run-facet.json", version="1.11.2"),
        "dbt_run": _facet(
            _DBT_SCHEMAS + "dbt-run-run-facet.json",
            invocation_id=invocation,
            project_name=PROJECT,
            project_version="1.0.0",
            profile_name=PROJECT,
            dbt_runtime="core",
        ),
        "processing_engine": _facet(
            f"{_SPEC_FACETS}1-1-1/ProcessingEngineRunFacet.json",
            version="1.11.2",
            name="dbt",
            openlineageAdapterVersion="1.54.0",
        ),
        "parent": _facet(
            f"{_SPEC_FACETS}1-1-0/ParentRunFacet.json",
            run={"runId": parent_run},
            job={"namespace": JOB_NAMESPACE, "name": f"dbt-run-{PROJECT}"},
        ),
        "tags": _facet(
            f"{_SPEC_FACETS}1-0-0/TagsRunFacet.json", tags=[{"key": command, "value": "true", "source": "DBT"}]
        ),
    }


def _job_facets(job_type: str, unique_id: str, sql: str | None) -> dict[str, Any]:
    facets = {
        "jobType": _facet(
            f"{_SPEC_FACETS}2-0-3/JobTypeJobFacet.json", processingType="BATCH", integration="DBT", jobType=job_type
        ),
        "dbt_node": _facet(
            _DBT_SCHEMAS + "dbt-node-job-facet.json",
            original_file_path=f"models/staging/{unique_id.rsplit('.', 1)[-1]}.sql",
            database=PROJECT,
            schema="main",
            alias="stg_orders",
            unique_id=unique_id,
        ),
    }
    if sql is not None:
        facets["sql"] = _facet(f"{_SPEC_FACETS}1-1-0/SQLJobFacet.json", query=sql, dialect="duckdb")
    return facets


def model_table_facets(*, description: str, types: dict[str, str] | None = None) -> dict[str, Any]:
    """The facets `dbt-ol run` sends on a model's output table; `types` as `dbt docs generate` finds them
    (without it dbt knows no column types and the integration sends none)."""
    fields = []
    for name, text in COLUMNS:
        field: dict[str, Any] = {"name": name, "description": text}
        if types:
            field["type"] = types[name]
        fields.append(field)
    return {
        "dataSource": _facet(f"{_SPEC_FACETS}1-0-1/DatasourceDatasetFacet.json", name=NAMESPACE, uri=NAMESPACE),
        "documentation": _facet(f"{_SPEC_FACETS}1-1-0/DocumentationDatasetFacet.json", description=description),
        "schema": _facet(f"{_SPEC_FACETS}1-1-1/SchemaDatasetFacet.json", fields=fields),
        "dbt_model": _facet(
            _DBT_SCHEMAS + "dbt-model-dataset-facet.json",
            unique_id="model.shop.stg_orders",
            config={"materialized": "table"},
        ),
    }


def assertions_facet(*, status_passes: bool) -> dict[str, Any]:
    """`dataQualityAssertions` as `dbt-ol test` sends it for `stg_orders`' tests."""
    return _facet(
        f"{_SPEC_FACETS}1-1-0/DataQualityAssertionsDatasetFacet.json",
        assertions=[
            {"assertion": "unique", "name": "unique_stg_orders_order_id", "success": True, "column": "order_id",
             "severity": "error", "actual": "0", "expected": "0"},
            {"assertion": "accepted_values", "name": "accepted_values_stg_orders_status", "success": status_passes,
             "column": "status", "severity": "error", "actual": "0" if status_passes else "3", "expected": "0"},
        ],
    )  # fmt: skip


def dbt_model_run(
    *,
    run_id: str,
    parent_run: str,
    at: datetime,
    description: str,
    sql: str | None = "select * from shop.main.raw_orders",
    types: dict[str, str] | None = None,
    table_facets: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """`dbt-ol run`'s START and COMPLETE of the `stg_orders` model, which writes `stg_orders`;
    `table_facets` replace the table's facets (a producer that sends others)."""
    facets = table_facets if table_facets is not None else model_table_facets(description=description, types=types)
    job = {"namespace": JOB_NAMESPACE, "name": TABLE, "facets": _job_facets("MODEL", "model.shop.stg_orders", sql)}
    return [
        {
            "eventType": event_type,
            "eventTime": _time(when),
            "producer": PRODUCER,
            "schemaURL": SCHEMA_URL,
            "run": {"runId": run_id, "facets": _run_facets("inv-" + parent_run[:8], parent_run, "run")},
            "job": job,
            "inputs": [{"namespace": NAMESPACE, "name": f"{PROJECT}.main.raw_orders", "facets": {}}],
            "outputs": [{"namespace": NAMESPACE, "name": TABLE, "facets": facets}],
        }
        for event_type, when in (("START", at), ("COMPLETE", at + timedelta(seconds=3)))
    ]


def dbt_test_run(*, run_id: str, parent_run: str, at: datetime, status_passes: bool) -> list[dict[str, Any]]:
    """`dbt-ol test`'s START and end of the tests on `stg_orders` (FAIL when one failed)."""
    assertions = assertions_facet(status_passes=status_passes)
    facets = _job_facets("TEST", "model.shop.stg_orders", None)
    job = {"namespace": JOB_NAMESPACE, "name": f"{TABLE}.test", "facets": facets}
    return [
        {
            "eventType": event_type,
            "eventTime": _time(when),
            "producer": PRODUCER,
            "schemaURL": SCHEMA_URL,
            "run": {"runId": run_id, "facets": _run_facets("inv-" + parent_run[:8], parent_run, "test")},
            "job": job,
            "inputs": [
                {
                    "namespace": NAMESPACE,
                    "name": TABLE,
                    "facets": {"dataQualityAssertions": assertions},
                    "inputFacets": {"dataQualityAssertions": assertions},
                }
            ],
            "outputs": [],
        }
        for event_type, when in (("START", at), ("COMPLETE" if status_passes else "FAIL", at + timedelta(seconds=2)))
    ]


def dataset_event(*, at: datetime, facets: dict[str, Any]) -> dict[str, Any]:
    """A DatasetEvent about `stg_orders` (one way a `_deleted` marker reaches a table)."""
    return {
        "eventTime": _time(at),
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
        "dataset": {"namespace": NAMESPACE, "name": TABLE, "facets": facets},
    }
