// The impact API's types (generated from the served schema of `/api/v1/impact`) and its typed calls.

import { API_ROOT, request } from "../../api/client";
import { IMPACT_REPORT_FORMATS } from "../../api/limits";
import type { components, operations } from "../../api/schema";

type Schemas = components["schemas"];

export type ImpactFormat = NonNullable<operations["impact_report"]["parameters"]["query"]["format"]>;
export const IMPACT_FORMATS = IMPACT_REPORT_FORMATS as readonly ImpactFormat[];

export type ImpactResponse = Schemas["Impact"];
export type ImpactAsset = Schemas["ImpactAsset"];
export type ImpactSummary = Schemas["ImpactSummary"];
export type ImpactOwner = ImpactAsset["owners"][number];
export type ImpactEdge = ImpactAsset["transformations"][number];

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
