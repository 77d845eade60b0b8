// Renderer for job nodes: a solid tag in the colour of the job's latest run state.

import type cytoscape from "cytoscape";
import { STATE_COLORS, stateKey } from "../../format";
import type { GraphNode } from "../model";

export const jobStyle: cytoscape.StylesheetJson = [
  {
    selector: 'node[kind = "JOB"]',
    style: {
      shape: "round-tag",
      width: "data(w)",
      height: "data(h)",
      "background-color": "data(fill)",
      "border-width": 0,
      label: "data(label)",
      "text-valign": "center",
      "text-halign": "center",
      // A second line, when there is one, names the namespace (graphs that span several).
      "text-wrap": "wrap",
      "line-height": 1.3,
      "font-size": 12,
      "font-weight": "bold",
      color: "#ffffff",
    },
  },
];

export function jobColors(node: GraphNode): { fill: string; stroke: string } {
  const color = STATE_COLORS[stateKey(node.data.latestRunState as string | null)];
  return { fill: color, stroke: color };
}
