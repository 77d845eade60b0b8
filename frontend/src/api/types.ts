// The read API's types, by the names the UI uses: aliases of the schemas generated from the server's OpenAPI schema.

import type { components, operations } from "./schema";

// Enums are named through the objects that hold them: the schema names an enum after its field, and renames it on a clash.
type Schemas = components["schemas"];
type LineageQuery = NonNullable<operations["lineage_graph"]["parameters"]["query"]>;

export type Direction = NonNullable<LineageQuery["direction"]>;
/** Lineage granularity: application jobs (their action jobs rolled up into them), or the action jobs. */
export type Level = NonNullable<LineageQuery["level"]>;

export type ApiErrorBody = Schemas["Error"];

export type Namespace = Schemas["NamespaceList"];
export type DatasetSummary = Schemas["DatasetList"];
export type JobSummary = Schemas["JobList"];
export type NamespacePage = Schemas["NamespacePage"];
export type DatasetPage = Schemas["DatasetPage"];
export type JobPage = Schemas["JobPage"];

export type DatasetDetail = Schemas["DatasetDetail"];
export type DatasetAlias = Schemas["DatasetDetailAlias"];
/** A job that wrote or read a dataset once, whose latest completed run no longer does. */
export type FormerJob = Schemas["FormerJob"];
export type VersionDiff = Schemas["DatasetVersionDiff"];
export type NearMissResponse = Schemas["DatasetNearMiss"];
export type FacetWarningList = Schemas["FacetWarningList"];
export type FacetWarningCount = Schemas["FacetWarningCount"];

export type JobDetail = Schemas["JobDetail"];
export type RunSummary = Schemas["RunSummary"];
/** A streaming query's run: its live progress (only on runs whose latest event reports one). */
export type Streaming = Schemas["Streaming"];
export type RunPage = Schemas["RunPage"];

export type LineageEdge = Schemas["DatasetEdge"];
/** When a lineage edge held: first and last seen, whether its job's latest completed run confirmed it, since when stale. */
export type EdgeValidity = Pick<LineageEdge, "firstSeen" | "lastSeen" | "current" | "staleSince">;
export type LineageNodeData = Schemas["LineageGraphNodeData"];
export type LineageNode = Schemas["LineageGraphNode"];
export type NodeType = LineageNode["type"];
export type LineageResponse = Schemas["LineageGraph"];
/** A hub's neighbours in one hop, in one namespace, counted instead of listed in a lineage answer (`clusters`). */
export type LineageCluster = Schemas["LineageCluster"];
/** `GET /lineage/neighbours`: a page of a hub's neighbours (a cluster's members), with the next page's cursor. */
export type LineageNeighbours = Schemas["LineageNeighbours"];
export type ColumnEdge = Schemas["FieldEdge"];
export type ColumnNode = Schemas["ColumnLineageGraphFieldNode"];
export type ColumnLineageResponse = Schemas["ColumnLineageGraph"];

/** How a node or edge of a diff differs: in the graph at `to` but not at `from` (added), the reverse (removed), or in both. */
export type Change = Schemas["ChangeEnum"];
/** `GET /lineage/diff`: one merged graph of the lineage at `from` and at `to`, each node and edge with its change. */
export type LineageDiff = Schemas["LineageDiff"];
export type LineageDiffNode = Schemas["LineageDiffNode"];
/** `GET /column-lineage/diff`: the same for a field's column lineage. */
export type ColumnLineageDiff = Schemas["ColumnLineageDiff"];
/** A dataset whose schema differs between a diff's two instants. */
export type SchemaChange = Schemas["SchemaChange"];

/** `GET /datasets/quality`: a dataset's data-quality status now and each run's checks and metrics of it. */
export type DatasetQuality = Schemas["DatasetQuality"];
export type QualityReport = Schemas["DatasetQualityReport"];
export type QualityCheck = Schemas["DatasetQualityCheck"];
export type QualityMetrics = Schemas["DatasetQualityMetrics"];
export type QualityStatus = Schemas["QualityStatusEnum"];

export type Failure = Schemas["FailureList"];
export type FailureClassification = NonNullable<Failure["classification"]>;
export type FailurePage = Schemas["FailurePage"];
/** `GET /failures/jobs`: failures grouped by job. */
export type FailureGroup = Schemas["FailureJobList"];
export type FailureGroupPage = Schemas["FailureJobPage"];
export type BlastRadius = Schemas["FailureBlastRadius"];

export type SearchResult = Schemas["NodeSearchHit"];
export type SearchType = SearchResult["type"];
export type SearchResponse = Schemas["NodeSearch"];

export type RunDetail = Schemas["RunDetail"];
/** `GET /jobs/runs/<runId>/lineage`: what a run read and wrote, and the change from the job's previous completed run. */
export type RunLineage = Schemas["RunLineage"];
/** What one run wrote to a dataset (its `outputStatistics`), on the dataset page's trend. */
export type WriteStatistics = Schemas["DatasetWriteStatistics"];

export type Incident = Schemas["IncidentOutput"];
export type IncidentDetail = Schemas["IncidentDetailOutput"];
export type IncidentPage = Schemas["IncidentPage"];
export type IncidentState = Incident["state"];
/** `GET /ledger/streams`: each producer stream's chain state (docs/ledger.md), and the producers whose events came unchained. */
export type LedgerStreamList = Schemas["LedgerStreamList"];
export type LedgerStream = Schemas["LedgerStream"];
export type LedgerState = Schemas["LedgerStreamStateEnum"];
export type LedgerUnchained = Schemas["LedgerUnchained"];
/** `GET /ledger/checkpoints`: the transparency log's checkpoints with their cosignatures, and open witness alarms. */
export type LogCheckpointList = Schemas["LogCheckpointList"];
export type WitnessedCheckpoint = Schemas["LogCheckpointWitnessed"];
export type WitnessAlarm = Schemas["WitnessAlarm"];
/** An event of a run with its chain position and its place in the transparency log. */
export type RunDetailEvent = Schemas["RunDetailEvent"];
