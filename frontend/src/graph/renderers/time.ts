// Renderer for lineage in time: stale edges dashed and grey; in a diff between two instants, what came green, what
// went red and dotted, what stayed grey and faded. Each also differs by more than colour (dash, border style, a sign in the
// label: see `drawnLabel`), and the toolbar's legend names them.

import type cytoscape from "cytoscape";
import { tint } from "./dataset";

export const TIME_COLORS = { added: "#1a7f37", removed: "#cf222e", stale: "#8c959f", current: "#afb8c1" } as const;

export const timeStyle: cytoscape.StylesheetJson = [
  {
    selector: "edge.stale",
    style: {
      "line-style": "dashed",
      "line-dash-pattern": [6, 4],
      "line-color": TIME_COLORS.stale,
      "target-arrow-color": TIME_COLORS.stale,
      "target-arrow-fill": "hollow",
    } as cytoscape.Css.Edge,
  },
  { selector: "edge.added", style: { width: 3, "line-color": TIME_COLORS.added, "target-arrow-color": TIME_COLORS.added } },
  {
    selector: "edge.removed",
    style: {
      width: 3,
      "line-style": "dotted",
      "line-color": TIME_COLORS.removed,
      "target-arrow-color": TIME_COLORS.removed,
      "target-arrow-fill": "hollow",
    },
  },
  { selector: "edge.unchanged", style: { opacity: 0.35 } },
  {
    selector: "node.added",
    style: { "border-width": 4, "border-style": "solid", "border-color": TIME_COLORS.added, "background-color": tint(TIME_COLORS.added) },
  },
  {
    selector: "node.removed",
    style: { "border-width": 4, "border-style": "dashed", "border-color": TIME_COLORS.removed, "background-color": tint(TIME_COLORS.removed) },
  },
  // Job tags are solid: their fill says it (a removed job's border dashed around it).
  { selector: 'node.added[kind = "JOB"]', style: { "background-color": TIME_COLORS.added } },
  { selector: 'node.removed[kind = "JOB"]', style: { "background-color": TIME_COLORS.removed, "border-color": "#82071e" } },
  // What stayed is drawn grey and faded: green and red then mean only what came and went, not run states.
  { selector: "node.unchanged", style: { opacity: 0.5, "border-color": TIME_COLORS.stale, "background-color": "#f6f8fa" } },
  { selector: 'node.unchanged[kind = "JOB"]', style: { "background-color": "#d0d7de", color: "#1f2328" } },
];
