// Renderer for clusters (level of detail on very large answers): a stacked card with its count,
// its border red when one of its members last failed.

import type cytoscape from "cytoscape";
import { STATE_COLORS } from "../../format";
import type { GraphNode } from "../model";
import { tint } from "./dataset";

export const clusterStyle: cytoscape.StylesheetJson = [
  {
    selector: 'node[kind = "CLUSTER"]',
    style: {
      shape: "round-rectangle",
      width: "data(w)",
      height: "data(h)",
      "background-color": "data(fill)",
      "border-width": 2,
      "border-style": "double",
      "border-color": "data(stroke)",
      label: "data(label)",
      "text-valign": "center",
      "text-halign": "center",
      "text-wrap": "wrap",
      "line-height": 1.3,
      "font-size": 16,
      "font-weight": "bold",
      color: "#1f2328",
      // A second card peeking out below says "several".
      "underlay-color": "data(stroke)",
      "underlay-opacity": 0.18,
      "underlay-padding": 5,
      "underlay-shape": "round-rectangle",
    },
  },
];

export function clusterColors(node: GraphNode): { fill: string; stroke: string } {
  const color = Number(node.data.failed) > 0 ? STATE_COLORS.FAILED : "#57606a";
  return { fill: tint("#8c959f"), stroke: color };
}
