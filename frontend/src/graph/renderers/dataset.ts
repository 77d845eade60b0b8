// Renderer for dataset nodes: a rounded box filled with the colour of the last run that wrote it.

import type cytoscape from "cytoscape";
import { STATE_COLORS } from "../../format";

export const datasetStyle: cytoscape.StylesheetJson = [
  {
    selector: 'node[kind = "DATASET"]',
    style: {
      shape: "round-rectangle",
      width: "data(w)",
      height: "data(h)",
      "background-color": "#ffffff",
      "border-width": 3,
      "border-color": STATE_COLORS.UNKNOWN,
      label: "data(label)",
      "text-valign": "center",
      "text-halign": "center",
      "font-size": 12,
      "text-max-width": "280px",
      "text-wrap": "ellipsis",
      color: "#1f2328",
    },
  },
  ...Object.entries(STATE_COLORS).map(([state, color]) => ({
    selector: `node[kind = "DATASET"][state = "${state}"]`,
    style: { "border-color": color, "background-color": tint(color) },
  })),
];

export function tint(hex: string): string {
  const n = parseInt(hex.slice(1), 16);
  const mix = (c: number) => Math.round(c + (255 - c) * 0.85);
  return `rgb(${mix(n >> 16)}, ${mix((n >> 8) & 255)}, ${mix(n & 255)})`;
}
