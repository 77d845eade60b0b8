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
export type VersionDiff = Schemas["DatasetVersionDiff"];
export type NearMissResponse = Schemas["DatasetNearMiss"];
export type FacetWarningList = Schemas["FacetWarningList"];
export type FacetWarningCount = Schemas["FacetWarningCount"];

export type JobDetail = Schemas["JobDetail"];
export type RunSummary = Schemas["RunSummary"];
/** A streaming query's run: its live progress (only on runs whose latest event reports one). */
export type Streaming = Schemas["Streaming"];
export type RunPage = Schemas["RunPage"];

export type LineageEdge = Schemas["Edge"];
/** When a lineage edge held: first and last seen, whether its job's latest completed run confirmed it, since when stale. */
export type EdgeValidity = Pick<LineageEdge, "firstSeen" | "lastSeen" | "current" | "staleSince">;
export type LineageNodeData = Schemas["LineageGraphNodeData"];
export type LineageNode = Schemas["LineageGraphNode"];
export type NodeType = LineageNode["type"];
export type LineageResponse = Schemas["LineageGraph"];
export type ColumnEdge = Schemas["FieldEdge"];
export type ColumnNode = Schemas["ColumnLineageGraphFieldNode"];
export type ColumnLineageResponse = Schemas["ColumnLineageGraph"];

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
