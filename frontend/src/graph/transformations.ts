// How a column edge's transformation is told apart: direct or indirect (solid or dashed) and each subtype (a colour),
// for the graph's edge style, the legend, tooltips, the side panel and the field table.

import type { ColumnEdge } from "../api/types";

export type TransformationEdge = Pick<ColumnEdge, "transformation" | "subtype" | "indirect">;

export interface Transformation {
  /** `DIRECT` or `INDIRECT`: drawn solid or dashed. */
  kind: "DIRECT" | "INDIRECT";
  /** The OpenLineage subtype (`IDENTITY`, `JOIN`, …), or `OTHER` for one this list does not name. */
  subtype: string;
  /** What the subtype means, in words, for the legend and the tooltip. */
  meaning: string;
  color: string;
}

/** The OpenLineage column-lineage subtypes, each with its colour; direct ones first. */
export const TRANSFORMATIONS: readonly Transformation[] = [
  { kind: "DIRECT", subtype: "IDENTITY", meaning: "copied as is", color: "#0969da" },
  { kind: "DIRECT", subtype: "TRANSFORMATION", meaning: "computed from it", color: "#8250df" },
  { kind: "DIRECT", subtype: "AGGREGATION", meaning: "aggregated from it", color: "#bf3989" },
  { kind: "INDIRECT", subtype: "JOIN", meaning: "decides which rows join", color: "#bc4c00" },
  { kind: "INDIRECT", subtype: "GROUP_BY", meaning: "decides the groups", color: "#1b7c83" },
  { kind: "INDIRECT", subtype: "FILTER", meaning: "decides which rows stay", color: "#6e7781" },
  { kind: "INDIRECT", subtype: "SORT", meaning: "decides the order", color: "#9a6700" },
  { kind: "INDIRECT", subtype: "WINDOW", meaning: "decides the window", color: "#633c01" },
  { kind: "INDIRECT", subtype: "CONDITIONAL", meaning: "decides a condition", color: "#3e1f79" },
];

const OTHER_COLOR = "#8c959f";

/** An edge's transformation: its kind (from `transformation`, else `indirect`) and its subtype's entry. */
export function transformationOf(edge: TransformationEdge): Transformation {
  const kind = edge.transformation === "INDIRECT" || (!edge.transformation && edge.indirect) ? "INDIRECT" : "DIRECT";
  const subtype = edge.subtype?.toUpperCase() ?? "";
  return TRANSFORMATIONS.find((each) => each.kind === kind && each.subtype === subtype)
    ?? { kind, subtype: subtype || "OTHER", meaning: kind === "DIRECT" ? "derived from it" : "influences it", color: OTHER_COLOR };
}

/** `DIRECT/AGGREGATION`, as OpenLineage spells it (the field table). */
export function transformationLabel(edge: TransformationEdge): string {
  const kind = edge.transformation ?? (edge.indirect ? "INDIRECT" : "DIRECT");
  return edge.subtype ? `${kind}/${edge.subtype}` : kind;
}

/** `direct · aggregation: aggregated from it`, in words (tooltips, the side panel). */
export function transformationText(edge: TransformationEdge): string {
  const { kind, subtype, meaning } = transformationOf(edge);
  return `${kind.toLowerCase()} · ${subtype.toLowerCase().replace(/_/g, " ")}: ${meaning}`;
}
