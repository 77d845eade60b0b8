// The impact API's types (mirroring `/api/v1/impact`) and its typed calls.

import { API_ROOT, request } from "../../api/client";

export type ImpactFormat = "json" | "csv" | "html" | "pdf";
export const IMPACT_FORMATS: ImpactFormat[] = ["json", "csv", "html", "pdf"];

export interface ImpactOwner {
  name: string;
  kind: string | null;
  contact: string | null;
  role: string | null;
  source: "manual" | "event" | string | null;
  inherited: boolean;
}

export interface ImpactEdge {
  job: string | null;
  transformation: string | null;
  subtype: string | null;
  indirect: boolean;
}

export interface ImpactAsset {
  id: string;
  type: "DATASET" | "JOB" | "DATASET_FIELD";
  namespace: string;
  name: string;
  dataset?: string;
  fieldType?: string | null;
  distance: number;
  path: string[];
  transformations: ImpactEdge[];
  owners: ImpactOwner[];
  lastRunState: string | null;
  lastRunTime: string | null;
  /** A job at application level: the ids of the action jobs folded into its row. */
  actions?: string[];
  /** A job at action level: the application it is part of. */
  application?: string | null;
}

export interface ImpactSummary {
  total: number;
  byType: Record<string, number>;
  byOwner: Record<string, number>;
  byNamespace: Record<string, number>;
  byDepth: Record<string, number>;
}

export interface ImpactResponse {
  nodeIds: string[];
  depth: number;
  asOf: string | null;
  generatedAt: string;
  assets: ImpactAsset[];
  summary: ImpactSummary;
}

/** `/api/v1/impact…?nodeId=a&nodeId=b&depth=…`: `nodeId` repeats, one per thing that changes. */
export function impactUrl(path: string, nodeIds: string[], depth: number, format?: ImpactFormat): string {
  const params = new URLSearchParams();
  for (const id of nodeIds) params.append("nodeId", id);
  params.set("depth", String(depth));
  if (format) params.set("format", format);
  return `${API_ROOT}${path}?${params}`;
}

export const impactApi = {
  impact: (nodeIds: string[], depth: number, signal?: AbortSignal) =>
    request<ImpactResponse>(impactUrl("/impact", nodeIds, depth), { signal }),
  reportUrl: (nodeIds: string[], depth: number, format: ImpactFormat) => impactUrl("/impact/report", nodeIds, depth, format),
};
