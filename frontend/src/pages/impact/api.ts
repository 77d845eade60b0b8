// The impact API's types (generated from the served schema of `/api/v1/impact`) and its typed calls.

import { API_ROOT, request } from "../../api/client";
import { paths } from "../../api/openapi.json";
import type { components, operations } from "../../api/schema";

type Schemas = components["schemas"];

export type ImpactFormat = NonNullable<operations["impact_report"]["parameters"]["query"]["format"]>;
/** The report's formats in the served schema's order (the type above is generated from the same file). */
export const IMPACT_FORMATS: ImpactFormat[] = (() => {
  const format = paths["/api/v1/impact/report"].get.parameters.find((parameter) => parameter.name === "format");
  const formats = format && "enum" in format.schema ? format.schema.enum : undefined;
  if (!formats?.length) throw new Error("the impact report API schema names no formats");
  return formats as ImpactFormat[];
})();

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
