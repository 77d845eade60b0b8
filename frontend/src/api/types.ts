// Types that mirror the read API's responses (docs/api.md); keep them in step with the contract.

export type NodeType = "DATASET" | "JOB";
export type RunState = "NEW" | "RUNNING" | "COMPLETED" | "FAILED" | "ABORTED";
export type Direction = "upstream" | "downstream" | "both";
/** Lineage granularity: application jobs (their action jobs rolled up into them), or the action jobs. */
export type Level = "application" | "action";
export type Verification =
  | "VERIFIED"
  | "UNSIGNED"
  | "INVALID_SIGNATURE"
  | "UNKNOWN_KEY"
  | "REVOKED_KEY"
  | "RETIRED_KEY"
  | "NAMESPACE_NOT_ALLOWED";

export interface ApiErrorBody {
  error: string;
  message: string;
  path?: string;
}

export interface Page<T> {
  count: number;
  results: T[];
}

export interface Namespace {
  name: string;
  datasetCount: number;
  jobCount: number;
}

export interface DatasetSummary {
  id: string;
  namespace: string;
  name: string;
  fieldCount: number | null;
  currentVersion: string | null;
  lastSeen: string | null;
  lastRunState: RunState | null;
}

export interface JobSummary {
  id: string;
  namespace: string;
  name: string;
  jobType: string | null;
  latestRunState: RunState | null;
  latestRunTime: string | null;
}

export interface Field {
  id: string;
  name: string;
  type: string | null;
  current: boolean;
}

export interface SchemaVersion {
  version: string;
  firstSeen: string | null;
  lastSeen: string | null;
  createdByRun: string | null;
  fields: { name: string; type: string | null }[];
}

export interface Owner {
  name: string;
  kind: string | null;
  role: string | null;
  source: string | null;
}

export interface RecentRun {
  runId: string;
  job: string;
  state: RunState;
  startedAt: string | null;
  endedAt: string | null;
}

export interface DatasetDetail {
  id: string;
  namespace: string;
  name: string;
  facets: Record<string, unknown>;
  fields: Field[];
  versions: SchemaVersion[];
  owners: Owner[];
  producers: string[];
  consumers: string[];
  lastRuns: RecentRun[];
  /** Other names of this dataset (symlinks, s3a:// paths, …), each with who named it so first. */
  aliases: DatasetAlias[];
}

export interface DatasetAlias {
  namespace: string;
  name: string;
  source: {
    kind: "dataset" | "symlink";
    type: string | null;
    job: string | null;
    producer: string | null;
    event: string;
    firstSeen: string;
  };
}

export interface VersionDiff {
  from: string;
  to: string;
  added: { name: string; type: string | null }[];
  removed: { name: string; type: string | null }[];
  changed: { name: string; fromType: string | null; toType: string | null }[];
  downstream: string[];
  truncated?: boolean;
}

export interface RunSummary {
  runId: string;
  state: RunState;
  startedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
  errorMessage: string | null;
  /** A failed / aborted run's root cause, one line (null otherwise). */
  cause?: string | null;
  classification?: FailureClassification | null;
  verification: Verification | null;
}

export interface JobDetail {
  id: string;
  namespace: string;
  name: string;
  jobType: string | null;
  facets: Record<string, unknown>;
  inputs: string[];
  outputs: string[];
  latestRun: RunSummary | null;
}

export interface RunDetail extends RunSummary {
  id: string;
  jobNamespace: string;
  jobName: string;
  stackTrace: string | null;
  facets: Record<string, unknown>;
  inputs: string[];
  outputs: string[];
  children: string[];
  parentRunId: string | null;
  events: unknown[];
}

export interface LineageEdge {
  origin: string;
  destination: string;
}

/** Dataset and job `data` as the lineage endpoint returns them (summaries from the graph). */
export interface LineageNodeData {
  nodeId?: string;
  namespace: string;
  name: string;
  // datasets
  currentVersion?: string | null;
  fieldCount?: number | null;
  lastRunState?: RunState | null;
  // jobs
  jobType?: string | null;
  latestRunId?: string | null;
  latestRunState?: RunState | null;
  latestRunTime?: string | null;
  /** An application job (level=application): the ids of its action jobs that it stands for. */
  actions?: string[];
  /** An action job (level=action): the id of the application job it is part of. */
  application?: string | null;
  firstSeen?: string | null;
  lastSeen?: string | null;
}

export interface LineageNode {
  id: string;
  type: NodeType;
  data: LineageNodeData;
  inEdges: LineageEdge[];
  outEdges: LineageEdge[];
}

export interface LineageResponse {
  nodeId: string;
  depth: number;
  direction: Direction;
  level?: Level;
  graph: LineageNode[];
  /** The traversal stopped at the server's node budget (`LINEAGE_MAX_NODES`). */
  truncated?: boolean;
}

export interface ColumnEdge extends LineageEdge {
  job: string | null;
  transformation: string | null;
  subtype: string | null;
  indirect: boolean | null;
}

export interface ColumnNode {
  id: string;
  type: "DATASET_FIELD";
  data: { namespace: string; dataset: string; name: string; type: string | null };
  inEdges: ColumnEdge[];
  outEdges: ColumnEdge[];
}

export interface ColumnLineageResponse {
  nodeId: string;
  depth: number;
  direction: Direction;
  graph: ColumnNode[];
  truncated?: boolean;
}

export type FailureClassification =
  "out_of_memory" | "cancelled" | "permission" | "missing_input" | "schema" | "data_validation" | "unknown";

export interface Failure {
  runId: string;
  job: string;
  state: "FAILED" | "ABORTED";
  startedAt: string | null;
  endedAt: string | null;
  errorMessage: string | null;
  stackTrace: string | null;
  /** The root cause, one line: `<exception>: <message>`. */
  cause: string | null;
  classification: FailureClassification | null;
  /** The run whose error is the headline: this one, or a failed action run of it. */
  causeRunId: string;
  parentRunId: string | null;
  failedActions: string[];
  outputs: string[];
}

export interface BlastRadius {
  datasets: { id: string; namespace: string; name: string; distance: number; owners: string[] }[];
  owners: string[];
  total: number;
  truncated: boolean;
  depth: number;
}

/** `GET /failures/jobs`: failures grouped by job. */
export interface FailureGroup {
  job: string;
  namespace: string;
  name: string;
  failureCount: number;
  consecutiveFailures: number;
  consecutiveFailuresCapped: boolean;
  failingSince: string | null;
  latestRunState: RunState | null;
  lastFailure: Failure | null;
  blastRadius: BlastRadius;
}

export type SearchType = "DATASET" | "JOB" | "DATASET_FIELD";

export interface SearchResult {
  id: string;
  type: SearchType;
  namespace: string;
  name: string;
  dataset?: string;
  /** A job: how many action jobs it has (an application), and the application it is an action of. */
  actionCount?: number;
  application?: string | null;
}

/** `GET /api/v1/facet-warnings`: stored events that had a facet left out, per producer and facet. */
export interface FacetWarningCount {
  producer: string;
  facet: string;
  events: number;
}

/** `GET /api/v1/datasets/near-miss`: whether two datasets are connected, and if not, why not. */
export interface NearMissResponse {
  a: string;
  b: string;
  connected: boolean;
  pathLength: number | null;
  direction: string | null;
  nearMisses: { kind: string; message: string; via: string[] }[];
}

export interface SearchResponse {
  results: SearchResult[];
}
