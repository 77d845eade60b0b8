"""The facets the OpenLineage Spark and Flink integrations send beyond the bundled spec, for docs/facets.md."""

from __future__ import annotations

from dataclasses import dataclass

SPARK = "Spark"
SPARK_ICEBERG = "Spark, with Iceberg tables"
SPARK_GCP = "Spark, on Google Cloud"
FLINK = "Flink"


@dataclass(frozen=True, kw_only=True)
class IntegrationFacet:
    key: str
    section: str  # a facet map, as `ingest.validation.FACET_SECTIONS` names them
    sent_by: str
    holds: str
    registry: bool = False  # defined in OpenLineage's facet registry (spec/registry), not only by the integration


# Read from the integrations' source (OpenLineage `integration/spark`, `integration/flink`, `spec/registry`, 2026):
# where each facet is attached and what it holds, in our words.
INTEGRATION_FACETS: tuple[IntegrationFacet, ...] = (
    IntegrationFacet(
        key="spark_properties",
        section="facets.run",
        sent_by=SPARK,
        holds="the Spark configuration properties the integration allows (the master, the application name, "
        "those listed in `spark.openlineage.capturedProperties`)",
    ),
    IntegrationFacet(
        key="spark_applicationDetails",
        section="facets.run",
        sent_by=SPARK,
        holds="the application: its id, name, master, deploy mode, driver host, user, and its UI, proxy and "
        "history-server addresses",
    ),
    IntegrationFacet(
        key="spark_jobDetails",
        section="facets.run",
        sent_by=SPARK,
        holds="the Spark job an action ran: its id, description, group and call site",
    ),
    IntegrationFacet(
        key="spark.logicalPlan",
        section="facets.run",
        sent_by=SPARK,
        holds="the query's logical plan, serialised (off unless the integration is told to send it; it can be large)",
    ),
    IntegrationFacet(
        key="spark_unknown",
        section="facets.run",
        sent_by=SPARK,
        holds="the plan nodes the integration could not read lineage from (off unless told to send it)",
    ),
    IntegrationFacet(
        key="spark.exception",
        section="facets.run",
        sent_by=SPARK,
        holds="the exception of a failed RDD job (SQL queries report the standard `errorMessage`)",
    ),
    IntegrationFacet(
        key="debug",
        section="facets.run",
        sent_by=SPARK,
        holds="the integration's own diagnostics: classpath, configuration, the plan it saw, its logs "
        "(off unless told to send it)",
    ),
    IntegrationFacet(
        key="environment-properties",
        section="facets.run",
        sent_by=SPARK,
        holds="attributes of where it ran: on Databricks the cluster, workspace, notebook, user and mount points; "
        "elsewhere the environment variables it is told to capture",
    ),
    IntegrationFacet(
        key="spark_version",
        section="facets.run",
        sent_by=SPARK,
        holds="Spark's and the integration's versions, from releases before the standard `processing_engine` "
        "replaced it",
    ),
    IntegrationFacet(
        key="gcp_dataproc",
        section="facets.run",
        sent_by=SPARK_GCP,
        holds="the Dataproc cluster, batch or session it ran on, with the project",
        registry=True,
    ),
    IntegrationFacet(
        key="gcp_lineage",
        section="facets.job",
        sent_by=SPARK_GCP,
        holds="the origin Google Cloud's Dataplex lineage records for the job",
        registry=True,
    ),
    IntegrationFacet(
        key="icebergScanReport",
        section="inputFacets",
        sent_by=SPARK_ICEBERG,
        holds="Iceberg's scan report of the table read: snapshot, filter, projected columns, scan metrics "
        "(files and manifests scanned and skipped, planning time)",
        registry=True,
    ),
    IntegrationFacet(
        key="icebergCommitReport",
        section="outputFacets",
        sent_by=SPARK_ICEBERG,
        holds="Iceberg's commit report of the table written: snapshot, sequence number, operation, commit "
        "metrics (files, records and bytes added and removed)",
        registry=True,
    ),
    IntegrationFacet(
        key="checkpoints",
        section="facets.run",
        sent_by=FLINK,
        holds="the job's checkpoint counts: completed, failed, in progress, restored, total",
    ),
    IntegrationFacet(
        key="flink_job",
        section="facets.run",
        sent_by=FLINK,
        holds="details of the Flink job, such as its id (the Flink 2 integration)",
    ),
)
