// The read API client: session cookie auth, CSRF header for writes, typed endpoints.

import type {
  ApiErrorBody, ColumnLineageDiff, ColumnLineageResponse, LineageDiff, RunLineage, DatasetDetail,
  DatasetQuality, DatasetPage, Direction, FacetWarningList, FailureClassification, FailureGroupPage, FailurePage,
  IncidentDetail, IncidentPage, IncidentState, JobDetail, JobPage, LedgerStreamList, Level, LineageNeighbours, LogCheckpointList, LineageResponse, NamespacePage, NearMissResponse, RunDetail, RunPage, SearchResponse, VersionDiff,
} from "./types";

export const API_ROOT = "/api/v1";

export class ApiError extends Error {
  constructor(readonly status: number, readonly body: ApiErrorBody) {
    super(body.message || body.error || `HTTP ${status}`);
    this.name = "ApiError";
  }
}

type Params = Record<string, string | number | boolean | null | undefined | string[]>;

/** `path?query` with empty values dropped and arrays repeated (`types=a&types=b` is never used: joined by `,`). */
export function apiUrl(path: string, params: Params = {}): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === "") continue;
    query.set(key, Array.isArray(value) ? value.join(",") : String(value));
  }
  const text = query.toString();
  return `${API_ROOT}${path}${text ? `?${text}` : ""}`;
}

/** The value of a cookie, or null. */
export function cookie(name: string, source: string = typeof document === "undefined" ? "" : document.cookie): string | null {
  for (const part of source.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return null;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  signal?: AbortSignal;
}

/** Called when the session has expired; the app sends the user to the login page. */
let onUnauthenticated: () => void = () => {
  const next = window.location.pathname + window.location.search;
  window.location.assign(`/login/?next=${encodeURIComponent(next)}`);
};

export function setUnauthenticatedHandler(handler: () => void): void {
  onUnauthenticated = handler;
}

export async function request<T>(url: string, options: RequestOptions = {}): Promise<T> {
  const method = (options.method ?? "GET").toUpperCase();
  const headers: Record<string, string> = { Accept: "application/json" };
  if (method !== "GET" && method !== "HEAD") {
    const token = cookie("csrftoken");
    if (token) headers["X-CSRFToken"] = token;
    if (options.body !== undefined) headers["Content-Type"] = "application/json";
  }
  const response = await fetch(url, {
    method,
    headers,
    credentials: "same-origin",
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  });
  if (response.status === 401 || (response.status === 403 && !(await isPermissionError(response)))) {
    onUnauthenticated();
  }
  if (!response.ok) {
    throw new ApiError(response.status, await errorBody(response));
  }
  if (response.status === 204) return undefined as T; // a DELETE: no body
  return (await response.json()) as T;
}

async function isPermissionError(response: Response): Promise<boolean> {
  // A 403 for a logged-in user without the scope is an error to show; "not authenticated" is a login.
  try {
    const body = (await response.clone().json()) as Partial<ApiErrorBody> & { detail?: string };
    const text = `${body.error ?? ""} ${body.message ?? ""} ${body.detail ?? ""}`.toLowerCase();
    return !text.includes("not authenticated") && !text.includes("credentials were not provided");
  } catch {
    return false;
  }
}

async function errorBody(response: Response): Promise<ApiErrorBody> {
  try {
    const body = (await response.json()) as Partial<ApiErrorBody> & { detail?: string };
    return {
      error: body.error ?? `http_${response.status}`,
      message: body.message ?? body.detail ?? response.statusText,
      path: body.path,
    };
  } catch {
    return { error: `http_${response.status}`, message: response.statusText || `HTTP ${response.status}` };
  }
}

const get = <T>(path: string, params?: Params, signal?: AbortSignal) => request<T>(apiUrl(path, params), { signal });

export interface PageParams {
  limit?: number;
  offset?: number;
}

export interface FailureFilters {
  namespace?: string;
  job?: string;
  classification?: FailureClassification;
  since?: string;
  until?: string;
}

/** When a lineage answer looks: at an instant (default now), and whether with the edges stale then. */
export interface LineageWhen {
  at?: string;
  includeStale?: boolean;
}

/** What a lineage answer draws besides the data flow as recorded: temporary datasets (else job -> job edges through them). */
export interface LineageShown {
  includeTemporary?: boolean;
}

const whenParams = ({ at, includeStale }: LineageWhen): Params => ({ at, includeStale: includeStale ? "true" : undefined });

export const api = {
  namespaces: (p: PageParams = {}) => get<NamespacePage>("/namespaces", { ...p }),
  datasets: (p: PageParams & { namespace?: string; q?: string } = {}) => get<DatasetPage>("/datasets", { ...p }),
  dataset: (nodeId: string) => get<DatasetDetail>("/datasets/detail", { nodeId }),
  datasetQuality: (nodeId: string) => get<DatasetQuality>("/datasets/quality", { nodeId }),
  facetWarnings: () => get<FacetWarningList>("/facet-warnings"),
  nearMiss: (a: string, b: string, signal?: AbortSignal) => get<NearMissResponse>("/datasets/near-miss", { a, b }, signal),
  versionDiff: (nodeId: string, from: string, to: string) =>
    get<VersionDiff>("/datasets/versions/diff", { nodeId, from, to }),
  jobs: (p: PageParams & { namespace?: string; q?: string } = {}) => get<JobPage>("/jobs", { ...p }),
  job: (nodeId: string) => get<JobDetail>("/jobs/detail", { nodeId }),
  jobRuns: (nodeId: string, p: PageParams = {}) => get<RunPage>("/jobs/runs", { nodeId, ...p }),
  run: (runId: string) => get<RunDetail>(`/jobs/runs/${encodeURIComponent(runId)}`),
  /** What a run read and wrote, and how that changed from the job's previous completed run. */
  runLineage: (runId: string, signal?: AbortSignal) => get<RunLineage>(`/jobs/runs/${encodeURIComponent(runId)}/lineage`, {}, signal),
  lineage: (
    nodeId: string, depth: number, direction: Direction, signal?: AbortSignal, level: Level = "application", when: LineageWhen = {},
    shown: LineageShown = {},
  ) =>
    get<LineageResponse>("/lineage", {
      nodeId, depth, direction, level, ...whenParams(when), includeTemporary: shown.includeTemporary ? "true" : undefined,
    }, signal),
  /** One page of a cluster's members: the neighbours of `nodeId` one hop `direction`-wards (in `namespace`), after `cursor`. */
  neighbours: (
    nodeId: string, direction: "upstream" | "downstream", namespace: string | null, cursor: string | null, signal?: AbortSignal,
    when: LineageWhen = {},
  ) =>
    get<LineageNeighbours>("/lineage/neighbours", {
      nodeId, direction, namespace: namespace ?? undefined, cursor: cursor ?? undefined, ...whenParams(when),
    }, signal),
  columnLineage: (nodeId: string, depth: number, direction: Direction, signal?: AbortSignal, when: LineageWhen = {}) =>
    get<ColumnLineageResponse>("/column-lineage", { nodeId, depth, direction, ...whenParams(when) }, signal),
  /** The lineage at `from` and at `to` as one graph, each node and edge marked added, removed or unchanged. */
  lineageDiff: (nodeId: string, depth: number, direction: Direction, from: string, to: string, signal?: AbortSignal, level: Level = "application") =>
    get<LineageDiff>("/lineage/diff", { nodeId, depth, direction, from, to, level }, signal),
  columnLineageDiff: (nodeId: string, depth: number, direction: Direction, from: string, to: string, signal?: AbortSignal) =>
    get<ColumnLineageDiff>("/column-lineage/diff", { nodeId, depth, direction, from, to }, signal),
  failures: (p: PageParams & FailureFilters = {}) => get<FailurePage>("/failures", { ...p }),
  failureJobs: (p: PageParams & FailureFilters = {}) => get<FailureGroupPage>("/failures/jobs", { ...p }),
  search: (q: string, types?: string[], limit = 20, signal?: AbortSignal) =>
    get<SearchResponse>("/search", { q, types, limit }, signal),
  incidents: (p: PageParams & { state?: IncidentState; team?: string } = {}) => get<IncidentPage>("/incidents", { ...p }),
  incident: (id: number) => get<IncidentDetail>(`/incidents/${id}`),
  /** Acknowledge or resolve an incident: its detail as it is now. */
  incidentAct: (id: number, action: "acknowledge" | "resolve") =>
    request<IncidentDetail>(apiUrl(`/incidents/${id}/${action}`), { method: "POST" }),
  /** Each producer stream's chain state: contiguous, gap, fork or truncated, with the seq ranges. */
  ledgerStreams: (p: { producer?: string; limit?: number } = {}) => get<LedgerStreamList>("/ledger/streams", { ...p }),
  /** The log's checkpoints, newest first, each with its witnesses' cosignatures; the open witness alarms. */
  ledgerCheckpoints: (p: { limit?: number; before?: number } = {}) => get<LogCheckpointList>("/ledger/checkpoints", { ...p }),
};
