// Renderer for dataset nodes: a rounded box, border and tint in the colour of the last run that wrote it, and a
// badge for its data-quality status: a mark before its name and, when its checks fail or warn, an outline.

import type cytoscape from "cytoscape";
import type { QualityStatus } from "../../api/types";
import { QUALITY_COLORS, QUALITY_MARKS, STATE_COLORS, stateKey } from "../../format";
import type { GraphNode } from "../model";

export const datasetStyle: cytoscape.StylesheetJson = [
  {
    selector: 'node[kind = "DATASET"]',
    style: {
      shape: "round-rectangle",
      width: "data(w)",
      height: "data(h)",
      // Colours come from the element's data (see `datasetColors`): one rule instead of one per state
      // keeps styling 1,000+ nodes cheap.
      "background-color": "data(fill)",
      "border-width": 3,
      "border-color": "data(stroke)",
      label: "data(label)",
      "text-valign": "center",
      "text-halign": "center",
      // A second line, when there is one, names the namespace (graphs that span several).
      "text-wrap": "wrap",
      "line-height": 1.3,
      "font-size": 12,
      color: "#1f2328",
    },
  },
  { selector: 'node[kind = "DATASET"][quality = "failing"]', style: { "outline-width": 3, "outline-offset": 2, "outline-color": QUALITY_COLORS.failing } },
  { selector: 'node[kind = "DATASET"][quality = "warning"]', style: { "outline-width": 3, "outline-offset": 2, "outline-color": QUALITY_COLORS.warning } },
];

/** The mark before a checked dataset's name: a sign, so that the outline's colour is not the only thing that tells. */
export function qualityMark(node: GraphNode): string {
  return node.type === "DATASET" ? QUALITY_MARKS[node.data.quality as QualityStatus] ?? "" : "";
}

export function datasetColors(node: GraphNode): { fill: string; stroke: string } {
  const color = STATE_COLORS[stateKey(node.data.lastRunState as string | null)];
  return { fill: tint(color), stroke: color };
}

export function tint(hex: string): string {
  const n = parseInt(hex.slice(1), 16);
  const mix = (c: number) => Math.round(c + (255 - c) * 0.85);
  return `rgb(${mix(n >> 16)}, ${mix((n >> 8) & 255)}, ${mix(n & 255)})`;
}
