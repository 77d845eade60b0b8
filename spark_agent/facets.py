"""OpenLineage 2-0-2 run events and the facets the agent attaches to them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from lineage_protocol import COUNTERS_FACET, STREAMING_FACET
from spark_agent import __version__
from spark_agent.owners import DeclaredOwner
from spark_agent.plan.model import ActionFacts, DatasetInfo, ErrorInfo

PRODUCER = f"https://github.com/tributary/tributary/tree/v{__version__}/spark_agent"
EVENT_SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
# The schemas' `$id`s as first published; the files are in `lineage_protocol/schemas/` (`lineage_protocol.SCHEMA_URL`).
COUNTERS_SCHEMA_URL = (
    "https://github.com/tributary/tributary/blob/main/spark_agent/schemas/"
    "TributaryCountersRunFacet.json#/$defs/TributaryCountersRunFacet"
)
STREAMING_SCHEMA_URL = (
    "https://github.com/tributary/tributary/blob/main/spark_agent/schemas/"
    "TributaryStreamingRunFacet.json#/$defs/TributaryStreamingRunFacet"
)
_SPEC = "https://openlineage.io/spec/facets/"
_FACET_SCHEMAS = {
    "schema": "1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet",
    "columnLineage": "1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet",
    "symlinks": "1-0-1/SymlinksDatasetFacet.json#/$defs/SymlinksDatasetFacet",
    "lifecycleStateChange": ("1-0-1/LifecycleStateChangeDatasetFacet.json#/$defs/LifecycleStateChangeDatasetFacet"),
    "inputStatistics": ("1-0-0/InputStatisticsInputDatasetFacet.json#/$defs/InputStatisticsInputDatasetFacet"),
    "outputStatistics": ("1-0-2/OutputStatisticsOutputDatasetFacet.json#/$defs/OutputStatisticsOutputDatasetFacet"),
    "processing_engine": "1-1-1/ProcessingEngineRunFacet.json#/$defs/ProcessingEngineRunFacet",
    "parent": "1-2-0/ParentRunFacet.json#/$defs/ParentRunFacet",
    "errorMessage": "1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet",
    "jobType": "2-0-4/JobTypeJobFacet.json#/$defs/JobTypeJobFacet",
    "datasetOwnership": "1-0-1/OwnershipDatasetFacet.json#/$defs/OwnershipDatasetFacet",
    "jobOwnership": "1-0-1/OwnershipJobFacet.json#/$defs/OwnershipJobFacet",
    "dataQualityAssertions": ("1-1-0/DataQualityAssertionsDatasetFacet.json#/$defs/DataQualityAssertionsDatasetFacet"),
    "dataQualityMetrics": "1-0-0/DataQualityMetricsDatasetFacet.json#/$defs/DataQualityMetricsDatasetFacet",
}


def facet(kind: str, **body: Any) -> dict[str, Any]:
    """A standard facet of `kind` with its `_producer` and `_schemaURL`."""
    return {"_producer": PRODUCER, "_schemaURL": _SPEC + _FACET_SCHEMAS[kind], **body}


def data_quality(assertions: list[dict[str, Any]] | None, metrics: dict[str, Any] | None) -> dict[str, Any]:
    """The standard `dataQualityAssertions` and `dataQualityMetrics` dataset facets, of what was given."""
    found: dict[str, Any] = {}
    if assertions is not None:
        found["dataQualityAssertions"] = facet("dataQualityAssertions", assertions=assertions)
    if metrics is not None:
        found["dataQualityMetrics"] = facet("dataQualityMetrics", **{"columnMetrics": {}, **metrics})
    return found


def iso_time(epoch_s: float) -> str:
    """`2026-11-21T15:59:10.123Z`."""
    return datetime.fromtimestamp(epoch_s, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def run_event(
    event_type: str,
    event_time: float,
    run_id: str,
    job: tuple[str, str],
    run_facets: dict[str, Any],
    job_facets: dict[str, Any],
    inputs: list[dict[str, Any]] | None = None,
    outputs: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A complete OpenLineage `RunEvent` as a JSON-ready dict."""
    return {
        "eventType": event_type,
        "eventTime": iso_time(event_time),
        "producer": PRODUCER,
        "schemaURL": EVENT_SCHEMA_URL,
        "run": {"runId": run_id, "facets": run_facets},
        "job": {"namespace": job[0], "name": job[1], "facets": job_facets},
        "inputs": inputs or [],
        "outputs": outputs or [],
    }


def job_type(kind: str, processing: str = "BATCH") -> dict[str, Any]:
    """`jobType` facet: `APPLICATION` for the Spark application, `SQL_JOB` for an action or a
    streaming query (`processing="STREAMING"`)."""
    return {"jobType": facet("jobType", processingType=processing, integration="SPARK", jobType=kind)}


def processing_engine(spark_version: str) -> dict[str, Any]:
    return {
        "processing_engine": facet(
            "processing_engine",
            version=spark_version,
            name="spark",
            openlineageAdapterVersion=__version__,
        )
    }


def job_ownership(owners: list[DeclaredOwner]) -> dict[str, Any]:
    """The standard `ownership` job facet, or nothing when no owner is declared."""
    if not owners:
        return {}
    return {"ownership": facet("jobOwnership", owners=[o.as_facet_entry() for o in owners])}


def parent(app_run_id: str, app_job: tuple[str, str]) -> dict[str, Any]:
    """`parent` facet pointing at the application run (which is also the root)."""
    ref = {"run": {"runId": app_run_id}, "job": {"namespace": app_job[0], "name": app_job[1]}}
    return {"parent": facet("parent", **ref, root=ref)}


def error_message(error: ErrorInfo) -> dict[str, Any]:
    return {
        "errorMessage": facet(
            "errorMessage",
            message=error.message,
            programmingLanguage=error.language,
            stackTrace=error.stack_trace,
        )
    }


def counters(values: dict[str, int]) -> dict[str, Any]:
    """The custom `tributary_counters` run facet (records/bytes in and out, errors...)."""
    return {COUNTERS_FACET: {"_producer": PRODUCER, "_schemaURL": COUNTERS_SCHEMA_URL, **values}}


def streaming(values: dict[str, Any]) -> dict[str, Any]:
    """The custom `tributary_streaming` run facet: a streaming query's identity and latest batch."""
    return {STREAMING_FACET: {"_producer": PRODUCER, "_schemaURL": STREAMING_SCHEMA_URL, **values}}


def action_counters(facts: ActionFacts) -> dict[str, int]:
    """Counter values for one action."""

    def total(datasets: list[DatasetInfo], attr: str) -> int:
        return sum(getattr(d.stats, attr) or 0 for d in datasets if d.stats is not None)

    return {
        "recordsIn": total(facts.inputs, "rows"),
        "recordsOut": total(facts.outputs, "rows"),
        "bytesIn": total(facts.inputs, "size"),
        "bytesOut": total(facts.outputs, "size"),
        "errorCount": 1 if facts.error else 0,
        "unresolvedColumns": facts.unresolved_columns,
        "unknownPlanNodes": len(facts.unknown_nodes),
    }


def dataset(
    info: DatasetInfo,
    *,
    output: bool,
    final: bool,
    owners: list[DeclaredOwner] | None = None,
    quality: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An input or output dataset; statistics and the data-quality facets reported for it (`quality`,
    `Agent.report_quality`) only on the run's final event; the standard `ownership` facet when `owners`
    are declared for it."""
    facets: dict[str, Any] = {}
    if info.schema is not None:
        facets["schema"] = facet("schema", fields=info.schema)
    if info.symlink is not None:
        ident = {
            "namespace": info.symlink.namespace,
            "name": info.symlink.name,
            "type": info.symlink.type,
        }
        facets["symlinks"] = facet("symlinks", identifiers=[ident])
    if output and info.column_lineage is not None:
        facets["columnLineage"] = facet("columnLineage", **info.column_lineage)
    if output and info.lifecycle is not None:
        facets["lifecycleStateChange"] = facet("lifecycleStateChange", lifecycleStateChange=info.lifecycle)
    if owners:
        facets["ownership"] = facet("datasetOwnership", owners=[o.as_facet_entry() for o in owners])
    if final and quality:
        facets.update(quality)
    out: dict[str, Any] = {"namespace": info.id.namespace, "name": info.id.name, "facets": facets}
    if final and info.stats is not None:
        stats = {
            k: v
            for k, v in (
                ("rowCount", info.stats.rows),
                ("size", info.stats.size),
                ("fileCount", info.stats.files),
            )
            if v is not None
        }
        key = "outputStatistics" if output else "inputStatistics"
        out["outputFacets" if output else "inputFacets"] = {key: facet(key, **stats)}
    return out
